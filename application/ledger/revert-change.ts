import { actingFor } from '../cluster/acting-caller.js';
import { hasRole, type Caller } from '../../domain/auth/caller.js';
import type { DryRunResult, KubeObject, WritePreconditions } from '../../domain/cluster/kube-types.js';
import { ConflictError, DomainError, ERROR_CODES, ForbiddenError, NotFoundError } from '../../domain/errors.js';
import type { ChangeEntry, InverseChange, SentChange } from '../../domain/ledger/change-entry.js';
import { deleteBody, patchBody } from '../../domain/cluster/write-bodies.js';
import { objectFromState } from '../../domain/ledger/object-state.js';
import { diffObjects } from '../../domain/operations/object-diff.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { ChangeRecorder } from './change-recorder.js';
import { viewFor, type ChangeView } from './change-view.js';

export interface RevertInput {
  id: string;
  /** Revert the recorded fields even though the object changed since (still dry-run first). */
  force?: boolean;
}

export interface RevertResult {
  original: ChangeView;
  revert: ChangeView;
}

/** The undo as it is sent (see send): the inverse with the precondition it is pinned to. */
function sentInverse(inverse: InverseChange, pin: WritePreconditions): SentChange {
  switch (inverse.method) {
    case 'patch':
      return { method: 'patch', patchType: 'merge', body: patchBody(inverse.body, pin.resourceVersion) };
    case 'delete': {
      const body = deleteBody(pin.resourceVersion);
      return { method: 'delete', ...(body ? { body } : {}) };
    }
    case 'create':
      return { method: 'apply', patchType: 'apply', body: inverse.body };
  }
}

const refOf = (e: ChangeEntry) => ({ apiVersion: e.target.apiVersion, kind: e.target.kind, name: e.target.name, namespace: e.target.namespace });

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
 * `POST /api/v1/changes/{id}/revert`: undoes one recorded change. Re-reads
 * the object; when it is still as the change left it (its resourceVersion
 * is the one recorded after the change, or only status and server-written
 * metadata moved since: controllers bump the resourceVersion with every
 * status write), dry-runs the inverse, applies it
 * through the ChangeRecorder (a `revert` entry pointing at the original) and
 * answers both. 409 CONFLICT when the object changed since (with the diff
 * between the recorded and the live state; `force` reverts anyway), when the
 * entry was already reverted, was a refused change, or has no inverse, or
 * when the API server refuses the inverse; for a git delivery (undone in git:
 * close the pull request or revert the commit). Operators revert their own
 * changes, admins any.
 */
export class RevertChange {
  constructor(
    private readonly ledger: ChangeLedger,
    private readonly reader: ClusterReader,
    private readonly writer: ClusterWriter,
    private readonly recorder: ChangeRecorder,
    private readonly tracer?: Tracer,
  ) {}

  /** The undo's reads, dry run and write are made for `caller` (impersonated when SVC_KUBE_IMPERSONATE is on). */
  execute(input: RevertInput, caller: Caller): Promise<RevertResult> {
    return actingFor(caller, () => this.traced(input, caller));
  }

  /** One `ledger revert` span (like a tool's): the ledger reads, the cluster calls and the append under it, the entries it made as `svc.ledger.ids`. */
  private async traced(input: RevertInput, caller: Caller): Promise<RevertResult> {
    if (!this.tracer) return this.revert(input, caller);
    const attributes = {
      'svc.ledger.operation': 'revert',
      'svc.ledger.revert_of': input.id.slice(0, 80),
      'svc.ledger.force': input.force === true,
      'enduser.id': caller.username,
    };
    return this.tracer.inSpan('ledger revert', attributes, async (span) => {
      try {
        const result = await this.revert(input, caller);
        span.setAttributes({ 'svc.ledger.ids': [result.revert.id] });
        return result;
      } catch (e) {
        // an undo the API server refused is recorded too
        const refused = e instanceof DomainError ? (e.details as { revertId?: unknown } | undefined)?.revertId : undefined;
        if (typeof refused === 'string') span.setAttributes({ 'svc.ledger.ids': [refused] });
        throw e;
      }
    });
  }

  private async revert(input: RevertInput, caller: Caller): Promise<RevertResult> {
    if (!hasRole(caller, 'operator'))
      throw new ForbiddenError(`Reverting a change needs the operator role; ${caller.username} does not hold it`, { required: 'operator' });
    const entry = await this.ledger.get(input.id);
    if (!entry)
      throw new NotFoundError(ERROR_CODES.NOT_FOUND, `No change ${JSON.stringify(input.id.slice(0, 80))} in the ledger (unknown, or removed by retention)`);
    // the same identity (kind, issuer, subject), never the same name alone; an entry recorded before ids were is an admin's to revert
    if (!hasRole(caller, 'admin') && (entry.caller.id === undefined || entry.caller.id !== caller.id)) {
      const whose = entry.caller.id === undefined ? `${entry.caller.username}'s change (recorded without an identity id)` : `${entry.caller.username}'s change`;
      throw new ForbiddenError(`Reverting ${whose} needs the admin role; an operator reverts only their own`, { required: 'admin' });
    }
    if (entry.git) throw gitRevertRefusal(entry);
    if (entry.outcome.status !== 'applied') {
      throw new ConflictError(`Change ${entry.id} was not applied (${entry.outcome.status}: ${entry.outcome.message}): there is nothing to revert`, {
        id: entry.id,
      });
    }
    const earlier = (await this.ledger.list({ revertOf: entry.id, outcome: 'applied' }, { limit: 1 })).entries[0];
    if (earlier) throw new ConflictError(`Change ${entry.id} was already reverted by ${earlier.id} at ${earlier.at}`, { id: entry.id, revertedBy: earlier.id });
    const inverse = entry.inverse;
    if (!inverse)
      throw new ConflictError(`Change ${entry.id} has no recorded inverse (nothing restorable changed, or it needs Secret values the ledger does not keep)`);
    const live = await this.reader.get(refOf(entry));
    this.checkUnchanged(entry, inverse, live, input.force === true);
    // pinned to the version just read: a change made between this check and the write is a 409, never overwritten
    const pin: WritePreconditions = typeof live?.metadata.resourceVersion === 'string' ? { resourceVersion: live.metadata.resourceVersion } : {};
    const verdict = await this.dryRun(entry, inverse, pin);
    if (!verdict.accepted)
      throw new ConflictError(`The API server refuses the undo of ${entry.id}: ${verdict.message}`, { reason: verdict.reason, causes: verdict.causes });
    const recorded = await this.recorder.write(
      { caller, tool: 'revert', approval: { mode: 'manual', by: caller.username }, revertOf: entry.id, request: `revert ${entry.id}` },
      {
        target: refOf(entry),
        // a deleted object comes back by server-side apply of the recorded state
        change: sentInverse(inverse, pin),
        dryRun: { accepted: true, object: verdict.object },
      },
      () => this.send(entry, inverse, pin),
    );
    if (recorded.error !== undefined) {
      const message = recorded.error instanceof Error ? recorded.error.message : 'the cluster call failed';
      throw new ConflictError(`The undo of ${entry.id} was refused by the API server: ${message}`, { revertId: recorded.ledgerId });
    }
    const revert = recorded.ledgerId ? await this.ledger.get(recorded.ledgerId) : undefined;
    if (!revert) throw new ConflictError(`The undo of ${entry.id} was applied but could not be recorded: ${recorded.ledgerError ?? 'unknown'}`);
    return { original: viewFor(entry, caller), revert: viewFor(revert, caller) };
  }

  /** The object must still be as the change left it, unless forced (a deleted object cannot be re-created over a live one, forced or not). */
  private checkUnchanged(entry: ChangeEntry, inverse: InverseChange, live: KubeObject | null, force: boolean): void {
    if (inverse.method === 'create') {
      if (live)
        throw new ConflictError(
          `${entry.target.kind}/${entry.target.name} exists again since ${entry.id} deleted it: delete it first to restore the recorded one`,
        );
      return;
    }
    if (!live) throw new ConflictError(`${entry.target.kind}/${entry.target.name} no longer exists: nothing to revert ${entry.id} on`);
    const now = live.metadata.resourceVersion;
    if (force || now === entry.resourceVersionAfter) return;
    // controllers write status (and so a new resourceVersion) all the time: what counts is whether the fields changed
    const recorded = entry.after ? objectFromState(entry.target, entry.after) : null;
    const diff = diffObjects(recorded, live);
    if (recorded && diff.length === 0) return;
    throw new ConflictError(
      `${entry.target.kind}/${entry.target.name} changed since ${entry.id} (resourceVersion ${entry.resourceVersionAfter ?? 'unknown'} then, ${now} now); send force: true to revert the recorded fields anyway`,
      { recordedResourceVersion: entry.resourceVersionAfter, liveResourceVersion: now, diff },
    );
  }

  /** The inverse is a JSON merge patch whatever the kind: it restores whole values (arrays included), which is what an undo means. */
  private dryRun(entry: ChangeEntry, inverse: InverseChange, pin: WritePreconditions): Promise<DryRunResult> {
    switch (inverse.method) {
      case 'patch':
        return this.writer.dryRunPatch(refOf(entry), inverse.body, { patchType: 'merge', ...pin });
      case 'delete':
        return this.writer.dryRunDelete(refOf(entry), pin);
      case 'create':
        return this.writer.dryRunApply(inverse.body as unknown as KubeObject);
    }
  }

  private async send(entry: ChangeEntry, inverse: InverseChange, pin: WritePreconditions): Promise<KubeObject | undefined> {
    switch (inverse.method) {
      case 'patch':
        return this.writer.patch(refOf(entry), inverse.body, { patchType: 'merge', ...pin });
      case 'delete':
        await this.writer.delete(refOf(entry), pin);
        return undefined;
      case 'create':
        return this.writer.apply(inverse.body as unknown as KubeObject);
    }
  }
}
