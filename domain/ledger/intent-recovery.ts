import type { KubeObject } from '../cluster/kube-types.js';
import { diffObjects } from '../operations/object-diff.js';
import { canonicalJson } from './canonical-json.js';
import type { ChangeEntry, ChangeOutcome, ChangeRecord, RecoveryFinding } from './change-entry.js';
import { inverseOf } from './inverse-change.js';
import { objectFromState, objectState } from './object-state.js';

/** What recovery read of an open intent's object: the live object (null: absent), or why it could not be read. */
export type Observation = { object: KubeObject | null } | { error: string };

const STOPPED = 'svc stopped (or could not record the outcome) before the API server’s answer was recorded';

/**
 * The outcome entry recovery appends for an open intent, from the object as
 * read now. Pure. The intent's own fields (who, what, the exact change, the
 * state before, the dry run) are carried over; the outcome is what the live
 * object shows:
 * - `applied` when it is as the write intended: the fields changed from the
 *   recorded state before are exactly the dry run's diff (a delete: the
 *   object is gone or being deleted). `after`, `resourceVersionAfter` and
 *   the inverse are then the live object's, as after an answered write.
 * - `failed` when the write did not take effect: the object still has the
 *   resourceVersion read before the write (a create: it does not exist).
 * - `unknown` otherwise: it changed in another way, is gone, the intended
 *   state is not known (no accepted dry run) or it could not be read.
 * `recovery` says what was found, in words.
 */
export function recoveredRecord(intent: ChangeEntry, seen: Observation): ChangeRecord {
  const { finding, outcome, message } = judge(intent, seen);
  const live = 'object' in seen ? seen.object : undefined;
  const applied = outcome.status === 'applied';
  const deleting = intent.change.method === 'delete';
  const after = applied ? (deleting ? null : (live ?? null)) : undefined;
  const secretData = intent.target.kind === 'Secret' && !!intent.before && /"(data|stringData)"/.test(JSON.stringify(intent.change.body ?? {}));
  const rv = live?.metadata.resourceVersion;
  return {
    type: intent.revertOf ? 'revert' : 'change',
    caller: intent.caller,
    tool: intent.tool,
    ...(intent.sessionId ? { sessionId: intent.sessionId } : {}),
    ...(intent.request ? { request: intent.request } : {}),
    ...(intent.rationale ? { rationale: intent.rationale } : {}),
    ...(intent.risk ? { risk: intent.risk } : {}),
    approval: intent.approval,
    target: intent.target,
    before: intent.before,
    ...(after !== undefined ? { after: objectState(after) } : {}),
    ...(intent.dryRun ? { dryRun: intent.dryRun } : {}),
    change: intent.change,
    outcome,
    ...(applied && !deleting && typeof rv === 'string' ? { resourceVersionAfter: rv } : {}),
    inverse: after === undefined || secretData || intent.beforeUnread ? null : inverseOf(intent.target, intent.before, after),
    ...(intent.revertOf ? { revertOf: intent.revertOf } : {}),
    intentId: intent.id,
    recovery: { finding, message },
  };
}

function judge(intent: ChangeEntry, seen: Observation): { finding: RecoveryFinding; outcome: ChangeOutcome; message: string } {
  const verdict = (finding: RecoveryFinding, status: 'applied' | 'failed' | 'unknown', why: string) => {
    const message = `${STOPPED}; ${why}`;
    const outcome: ChangeOutcome = status === 'applied' ? { status } : { status, message };
    return { finding, outcome, message };
  };
  if ('error' in seen) return verdict('unreadable', 'unknown', `the object could not be read at recovery: ${seen.error.slice(0, 500)}`);
  const live = seen.object;
  const beforeVersion = intent.beforeUnread ? undefined : intent.before?.resourceVersion;
  const unchanged = live !== null && beforeVersion !== undefined && live.metadata.resourceVersion === beforeVersion;
  if (intent.change.method === 'delete') {
    if (live === null || live.metadata.deletionTimestamp !== undefined)
      return verdict('gone', 'applied', 'at recovery the object is gone (or being deleted), as the delete intended');
    if (unchanged) return verdict('unchanged', 'failed', 'at recovery the object is as it was before (same resourceVersion): the delete did not take effect');
    return verdict('differs', 'unknown', 'at recovery the object exists and changed since the intent: whether the delete reached it is not known');
  }
  if (live === null) {
    return intent.before === null && !intent.beforeUnread
      ? verdict('absent', 'failed', 'at recovery the object does not exist: the write did not create it')
      : verdict('absent', 'unknown', 'at recovery the object no longer exists: whether the write reached it is not known');
  }
  const intended = intent.dryRun?.accepted ? intent.dryRun.diff : undefined;
  if (unchanged && intended?.length)
    return verdict('unchanged', 'failed', 'at recovery the object is as it was before (same resourceVersion): the write did not take effect');
  if (intended && !intent.beforeUnread) {
    const before = intent.before ? objectFromState(intent.target, intent.before) : null;
    const now = objectFromState(intent.target, objectState(live)!);
    if (canonicalJson(diffObjects(before, now)) === canonicalJson(intended))
      return verdict(
        'matches',
        'applied',
        `at recovery the live object (resourceVersion ${String(live.metadata.resourceVersion)}) differs from the state before exactly as the write intended`,
      );
  }
  return verdict(
    'differs',
    'unknown',
    intended
      ? 'at recovery the object is neither as it was before nor as the write intended: whether the write reached it is not known'
      : 'the intended state is not known (no accepted dry run), so the live object cannot tell whether the write reached it',
  );
}
