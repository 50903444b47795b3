import { hasRole, type Caller } from '../../domain/auth/caller.js';
import { ConflictError, ERROR_CODES, ForbiddenError, NotFoundError } from '../../domain/errors.js';
import type { ChangeEntry, InverseChange } from '../../domain/ledger/change-entry.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { actsAs } from '../../domain/auth/session-owner.js';

/** A git delivery changed a repository, not a cluster: svc does not undo it, git does (the message says how). */
function gitRevertRefusal(entry: ChangeEntry): ConflictError {
  const git = entry.git!;
  const where = `branch ${git.branch} of ${git.repository}`;
  const how =
    entry.outcome.status !== 'applied' || !git.commit
      ? `nothing reached ${where} (${entry.outcome.status}), so there is nothing to revert`
      : git.pullRequest
        ? `close pull request #${git.pullRequest.number} (${git.pullRequest.url}) if it is not merged, or revert commit ${git.commit} in ${git.repository} if it is`
        : `delete ${where}, or revert commit ${git.commit} there if it was merged`;
  return new ConflictError(`Change ${entry.id} was delivered through git, not written to a cluster: revert it in git: ${how}`, {
    id: entry.id,
    repository: git.repository,
    branch: git.branch,
    ...(git.commit ? { commit: git.commit } : {}),
    ...(git.pullRequest ? { pullRequest: git.pullRequest.url } : {}),
  });
}

/**
 * The entry `id` if `caller` may revert it and it can be reverted: the
 * operator role (403); a recorded change (404 when unknown), the caller's
 * own by identity (kind, issuer, subject), never by name alone, unless they
 * are an admin (403); made in a cluster, not through git; the outcome of a
 * write, not its intent; applied; not already reverted; with a recorded
 * inverse; not a `verdict` entry (nothing was written: the change it
 * judges is what reverts) (409 otherwise, saying why).
 */
export async function revertableEntry(ledger: ChangeLedger, id: string, caller: Caller): Promise<{ entry: ChangeEntry; inverse: InverseChange }> {
  if (!hasRole(caller, 'operator'))
    throw new ForbiddenError(`Reverting a change needs the operator role; ${caller.username} does not hold it`, { required: 'operator' });
  const entry = await ledger.get(id);
  if (!entry) throw new NotFoundError(ERROR_CODES.NOT_FOUND, `No change ${JSON.stringify(id.slice(0, 80))} in the ledger (unknown, or removed by retention)`);
  // the same identity (kind, issuer, subject) or the same person by the people file, never the same name alone; an entry recorded before ids were is an admin's to revert
  if (!hasRole(caller, 'admin') && !actsAs(entry.caller, caller)) {
    const whose = entry.caller.id === undefined ? `${entry.caller.username}'s change (recorded without an identity id)` : `${entry.caller.username}'s change`;
    throw new ForbiddenError(`Reverting ${whose} needs the admin role; an operator reverts only their own`, { required: 'admin' });
  }
  if (entry.git) throw gitRevertRefusal(entry);
  if (entry.type === 'verdict') {
    throw new ConflictError(
      `Entry ${entry.id} is svc's verdict on change ${entry.verdictOf ?? '(unknown)'}, not a change: nothing was written, so there is nothing to revert${
        entry.verdictOf ? `; to undo the change it judges, revert ${entry.verdictOf}` : ''
      }`,
      { id: entry.id, ...(entry.verdictOf ? { verdictOf: entry.verdictOf } : {}) },
    );
  }
  if (entry.type === 'intent') {
    const outcome = (await ledger.list({ intentId: entry.id }, { limit: 1 })).entries[0];
    throw new ConflictError(
      outcome
        ? `Entry ${entry.id} is the intent of a write, not the change: revert ${outcome.id}, which records its outcome`
        : `Entry ${entry.id} is the intent of a write whose outcome is not recorded yet (svc records it after the API server answers, or recovery after reading the object): there is nothing to revert yet`,
      { id: entry.id, ...(outcome ? { outcomeId: outcome.id } : {}) },
    );
  }
  if (entry.outcome.status !== 'applied') {
    const why = 'message' in entry.outcome ? `${entry.outcome.status}: ${entry.outcome.message}` : entry.outcome.status;
    throw new ConflictError(`Change ${entry.id} was not applied (${why}): there is nothing to revert`, {
      id: entry.id,
    });
  }
  const earlier = (await ledger.list({ revertOf: entry.id, outcome: 'applied' }, { limit: 1 })).entries[0];
  if (earlier) throw new ConflictError(`Change ${entry.id} was already reverted by ${earlier.id} at ${earlier.at}`, { id: entry.id, revertedBy: earlier.id });
  const inverse = entry.inverse;
  if (!inverse)
    throw new ConflictError(`Change ${entry.id} has no recorded inverse (nothing restorable changed, or it needs Secret values the ledger does not keep)`);
  return { entry, inverse };
}
