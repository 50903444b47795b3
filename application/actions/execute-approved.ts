import { actionTarget, RISK_LEVELS, type ClusterAction } from '../../domain/actions/cluster-action.js';
import { withOperations } from '../../domain/actions/custom-resource-patch.js';
import { describeTarget } from '../../domain/actions/write-scope.js';
import { DependencyError } from '../../domain/errors.js';
import type { FieldChange } from '../../domain/operations/object-diff.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { GuardedWrite } from '../guarded-write/guarded-write.js';
import type { StoredPolicies } from './policy-source.js';
import { approvedWrite, pinOf } from './action-write.js';
import { executeActions, notRun, type CheckedAction, type ExecutionReport, type WriteRecording } from './execute-actions.js';
import { previewActions } from './preview-actions.js';
import type { ProposedAction } from './proposed-action.js';
import { NothingAppliedError } from './run-once.js';

export interface ApprovedExecutionDeps {
  /** The one guarded-write pipeline: every action is checked through it again before any is written. */
  guard: GuardedWrite;
  clock: Clock;
}

const MAX_DRIFT_ENTRIES = 5;
const rank = (r: string) => RISK_LEVELS.indexOf(r as (typeof RISK_LEVELS)[number]);

/**
 * Runs an approved proposal exactly as approved. Every action goes through
 * the guarded-write pipeline again before any is written, as it will be
 * sent: discovery, the allow-lists and unsafe patches (configuration or the
 * cluster may have changed), the live object (one previewed as absent must
 * still be absent: a read just before, not an atomic precondition), the dry
 * run pinned to the version its preview saw (a custom resource's patch as
 * the operations its preview computed), the write guard (an image registry
 * refused since; a risk now above the approved one refuses, `RiskRaised`),
 * every stored policy read again (one added or tightened since refuses).
 * A refusal applies nothing; when an object changed since (the server
 * answers 409) the refusal says what changed: the approved diff against a
 * fresh one. A dependency failing before any write is NothingAppliedError
 * (the session may be executed again). Then executeActions writes them in
 * order, each recorded in the ledger with the risk approved.
 */
export async function executeApproved(
  deps: ApprovedExecutionDeps,
  actions: ClusterAction[],
  approved: readonly ProposedAction[],
  recording: WriteRecording,
): Promise<ExecutionReport> {
  const at = new Date(deps.clock.now());
  const policies = await deps.guard.policies();
  const checked: CheckedAction[] = [];
  for (const [i, action] of actions.entries()) {
    const r = await deps.guard.check(approvedWrite(action, approved[i], at), policies);
    const was = approved[i]?.risk ?? 'high';
    const refusal =
      r.refusal ??
      (rank(r.risk) > rank(was)
        ? {
            reason: 'RiskRaised',
            message: `svc now rates this change ${r.risk} (${r.riskReasons.join('; ')}), above the ${was} approved; nothing was applied. Start again to review it.`,
            causes: [],
          }
        : undefined);
    if (refusal?.error instanceof DependencyError) throw new NothingAppliedError(refusal.error);
    if (refusal?.error) throw refusal.error;
    if (refusal) {
      const message = await conflictMessage(deps, policies, action, approved[i], refusal);
      return notRun(actions, { action: i + 1, description: action.description, reason: refusal.reason, message, causes: refusal.causes });
    }
    if (!r.dryRun) throw new Error('a guarded write passed without a dry run');
    // each carries the risk svc assessed at preview (the ledger records it), never the model's label
    checked.push({ action: { ...withOperations(action, approved[i]?.jsonPatch), risk: was }, operation: r.operation, dryRun: r.dryRun });
  }
  return executeActions((op, warnings) => deps.guard.send(op, warnings), checked, recording);
}

/** A refusal's message; for a 409 on an action pinned to its previewed version, what changed since approval. */
async function conflictMessage(
  deps: ApprovedExecutionDeps,
  policies: StoredPolicies,
  action: ClusterAction,
  approved: ProposedAction | undefined,
  refusal: { reason: string; message: string },
): Promise<string> {
  const pin = pinOf(action, approved).resourceVersion;
  if (refusal.reason !== 'Conflict' || !approved || !pin) return refusal.message;
  const drift = await describeDrift(deps, policies, action, approved);
  return `${describeTarget(actionTarget(action))} changed since approval (it was at resourceVersion ${pin}); nothing was applied. ${drift} Start again to review the change against the object as it is now.`;
}

/** What differs between the approved diff and the diff the same action would make now. */
async function describeDrift(deps: ApprovedExecutionDeps, policies: StoredPolicies, action: ClusterAction, approved: ProposedAction): Promise<string> {
  const [now] = await previewActions(deps.guard, [action], new Date(deps.clock.now()), policies);
  if (!now.dryRun.accepted) return `Against the object as it is now the action is refused: ${now.dryRun.message}.`;
  const before = new Map(approved.diff.map((c) => [c.path, c]));
  const after = new Map(now.diff.map((c) => [c.path, c]));
  const show = (c: FieldChange | undefined) => (c ? `${JSON.stringify(c.from ?? null)} -> ${JSON.stringify(c.to ?? null)}` : 'no change');
  const changed = [...new Set([...before.keys(), ...after.keys()])]
    .filter((p) => JSON.stringify(before.get(p)) !== JSON.stringify(after.get(p)))
    .map((p) => `${p}: approved ${show(before.get(p))}, now ${show(after.get(p))}`);
  if (changed.length === 0) return 'The fields this action changes are as approved; other fields of the object changed.';
  return `What the action would do now differs from what was approved: ${changed.slice(0, MAX_DRIFT_ENTRIES).join('; ')}${changed.length > MAX_DRIFT_ENTRIES ? '; …' : ''}.`;
}
