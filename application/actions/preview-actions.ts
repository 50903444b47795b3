import { kubectlEquivalent, type ClusterAction } from '../../domain/actions/cluster-action.js';
import { withOperations } from '../../domain/actions/custom-resource-patch.js';
import { refOf } from '../../domain/write-guard/resolved-target.js';
import type { GuardedWrite } from '../guarded-write/guarded-write.js';
import type { GuardedWriteResult } from '../guarded-write/write-request.js';
import type { StoredPolicies } from './policy-source.js';
import { previewedWrite } from './action-write.js';
import type { ProposedAction } from './proposed-action.js';

export { MAX_DIFF_ENTRIES, UNNAMED_REMOVAL_NOTE } from '../guarded-write/write-redaction.js';

/**
 * Previews each action as svc will run it, through the one guarded-write
 * pipeline (GuardedWrite.check: discovery, the allow-lists and unsafe
 * patches before any other request, the live object, the dry run as it
 * would be sent, the write guard's risk, every stored policy, the redacted
 * diff). The live object's resourceVersion is kept as the precondition of
 * the later write. Every action is previewed on its own, also after a
 * refusal, so the caller sees all verdicts and one bad action (even a
 * malformed one) refuses only itself; an API server failing during the
 * preview is that action's refusal (`Unavailable`), not a failed call.
 */
export async function previewActions(guard: GuardedWrite, actions: ClusterAction[], now: Date, policies?: StoredPolicies): Promise<ProposedAction[]> {
  const stored = policies ?? (await guard.policies());
  const out: ProposedAction[] = [];
  for (const [i, action] of actions.entries()) out.push(proposedAction(action, i + 1, await guard.check(previewedWrite(action, now), stored)));
  return out;
}

/** The pipeline's result as the caller sees an action and the automatic rule judges it. */
export function proposedAction(action: ClusterAction, position: number, r: GuardedWriteResult): ProposedAction {
  const computed = r.prepared?.jsonPatch;
  const refusal = r.refusal;
  return {
    action: position,
    type: action.type,
    description: action.description,
    rationale: action.rationale,
    target: r.target ? refOf(r.target) : r.ref,
    kubectl: kubectlEquivalent(computed ? withOperations(action, computed) : action),
    ...(computed ? { jsonPatch: computed } : {}),
    // unknown (refused before the read): an update
    effect: r.effect ?? (action.type === 'delete' ? 'delete' : 'update'),
    ...(r.resourceVersion ? { resourceVersion: r.resourceVersion } : {}),
    ...(r.uid ? { uid: r.uid } : {}),
    risk: r.risk,
    ...(r.riskReasons.length ? { riskReasons: r.riskReasons } : {}),
    ...(r.sensitive?.length ? { sensitive: r.sensitive } : {}),
    dryRun: refusal
      ? {
          accepted: false,
          reason: refusal.reason,
          message: refusal.message,
          causes: refusal.causes.map(({ field, message }) => ({ ...(field ? { field } : {}), message })),
          ...(refusal.byCaller ? { byCaller: true as const } : {}),
        }
      : { accepted: true },
    diff: r.diff,
    ...(r.diffOmitted ? { diffOmitted: r.diffOmitted } : {}),
    ...(r.warnings ? { warnings: r.warnings } : {}),
  };
}
