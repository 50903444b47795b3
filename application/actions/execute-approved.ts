import { actionTarget, kubectlEquivalent, toOperation, type ActionPin, type ClusterAction } from '../../domain/actions/cluster-action.js';
import { withOperations } from '../../domain/actions/custom-resource-patch.js';
import { describeTarget, guardSettingsOf } from '../../domain/actions/write-scope.js';
import { checkBeforeIo } from '../../domain/write-guard/write-guard.js';
import type { FieldChange } from '../../domain/operations/object-diff.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import { secretValuesWritten } from '../../domain/security/secret-values.js';
import { noteValuesWritten } from '../security/secret-scope.js';
import { executeActions, type ExecutionReport, type WriteRecording } from './execute-actions.js';
import { NO_POLICIES, type PolicySource } from './policy-source.js';
import { policyVerdict, previewActions, resolveForWrite, writeAsSent, type PreviewChecks } from './preview-actions.js';
import type { ProposedAction } from './proposed-action.js';

export interface ApprovedExecutionDeps {
  reader: ClusterReader;
  writer: ClusterWriter;
  clock: Clock;
  /** The organisation's policies, read again now: each dry run's object is checked against every stored one. */
  policies?: PolicySource;
}

const MAX_DRIFT_ENTRIES = 5;

/**
 * Runs an approved proposal exactly as approved: the write guard's target
 * checks run again (discovery, the allow-lists, unsafe patches:
 * configuration or the cluster may have changed), an object previewed as
 * absent (a create) must still be absent (checked by a read just before:
 * not an atomic precondition), and every stored policy is read
 * again and checked on each execute-time dry run's object (a policy added or
 * tightened since the preview refuses the write; nothing is applied), then executeActions with each
 * action pinned to the resourceVersion its preview saw, and a custom
 * resource's patch sent as the JSON Patch operations its preview computed. When an object
 * changed since (the server answers 409), nothing is applied and the refusal
 * says what changed: the approved diff against a fresh one.
 */
export async function executeApproved(
  deps: ApprovedExecutionDeps,
  checks: PreviewChecks,
  actions: ClusterAction[],
  approved: readonly ProposedAction[],
  recording?: WriteRecording,
): Promise<ExecutionReport> {
  const at = new Date(deps.clock.now());
  // a custom resource's patch goes out as the very operations the preview computed and dry-ran, never recomputed;
  // each carries the risk svc assessed at preview (the ledger records it), never the model's label
  const sent = actions.map((a, i) => ({ ...withOperations(a, approved[i]?.jsonPatch), risk: approved[i]?.risk ?? 'high' }));
  const notRun = (i: number, reason: string, message: string): ExecutionReport => ({
    dryRunPassed: false,
    refused: { action: i + 1, description: actions[i].description, reason, message, causes: [] },
    outcomes: actions.map((x, j) => ({ action: j + 1, description: x.description, kubectl: kubectlEquivalent(x), status: 'not-run' })),
  });
  for (const [i, a] of sent.entries()) {
    noteValuesWritten(secretValuesWritten(actionTarget(a), a.type === 'apply' ? a.manifest : a.type === 'patch' ? a.patch : undefined));
    const resolved = await resolveForWrite(deps.reader, a);
    const outside =
      'target' in resolved ? checkBeforeIo(resolved.target, writeAsSent(toOperation(a, at)), guardSettingsOf(checks.scope))?.reason : resolved.message;
    if (outside) return notRun(i, 'OutsideWriteScope', outside);
    // an object absent at preview is created only if still absent: one that appeared since is not overwritten
    if (approved[i]?.effect === 'create' && (await deps.reader.get(actionTarget(a))))
      return notRun(
        i,
        'AlreadyExists',
        `${describeTarget(actionTarget(a))} did not exist when the change was previewed and exists now; nothing was applied. Start again to review the change against it.`,
      );
  }
  const policies = await (deps.policies ?? NO_POLICIES).stored();
  const now = { ...checks, policies };
  const pins = actions.map((a, i) => pinOf(a, approved[i]));
  const report = await executeActions(deps.writer, sent, deps.clock, pins, recording, (action, result) => policyVerdict(action, result, policies));
  const refused = report.refused;
  const pin = refused && pins[refused.action - 1]?.resourceVersion;
  if (!refused || refused.reason !== 'Conflict' || !pin) return report;
  const i = refused.action - 1;
  const drift = await describeDrift(deps, now, actions[i], approved[i]);
  const message = `${describeTarget(actionTarget(actions[i]))} changed since approval (it was at resourceVersion ${pin}); nothing was applied. ${drift} Start again to review the change against the object as it is now.`;
  return { ...report, refused: { ...refused, message } };
}

/**
 * What an action's write is pinned to: its preview's resourceVersion; an
 * apply previewed as a create is sent as a create (the object must still be
 * absent: 409 AlreadyExists otherwise); a delete also carries the uid, and a
 * Pod delete the uid alone (a Pod's status, and so its resourceVersion,
 * changes all the time; another Pod under the same name is what matters).
 */
function pinOf(action: ClusterAction, approved: ProposedAction | undefined): ActionPin {
  if (!approved) return {};
  if (action.type === 'apply' && approved.effect === 'create') return { create: true };
  const t = actionTarget(action);
  if (action.type === 'delete' && approved.uid && t.apiVersion === 'v1' && t.kind === 'Pod') return { uid: approved.uid };
  return {
    ...(approved.resourceVersion ? { resourceVersion: approved.resourceVersion } : {}),
    ...(action.type === 'delete' && approved.uid ? { uid: approved.uid } : {}),
  };
}

/** What differs between the approved diff and the diff the same action would make now. */
async function describeDrift(deps: ApprovedExecutionDeps, checks: PreviewChecks, action: ClusterAction, approved: ProposedAction | undefined): Promise<string> {
  const [now] = await previewActions(deps.reader, deps.writer, [action], new Date(deps.clock.now()), checks);
  if (!now.dryRun.accepted) return `Against the object as it is now the action is refused: ${now.dryRun.message}.`;
  const before = new Map((approved?.diff ?? []).map((c) => [c.path, c]));
  const after = new Map(now.diff.map((c) => [c.path, c]));
  const show = (c: FieldChange | undefined) => (c ? `${JSON.stringify(c.from ?? null)} -> ${JSON.stringify(c.to ?? null)}` : 'no change');
  const changed = [...new Set([...before.keys(), ...after.keys()])]
    .filter((p) => JSON.stringify(before.get(p)) !== JSON.stringify(after.get(p)))
    .map((p) => `${p}: approved ${show(before.get(p))}, now ${show(after.get(p))}`);
  if (changed.length === 0) return 'The fields this action changes are as approved; other fields of the object changed.';
  return `What the action would do now differs from what was approved: ${changed.slice(0, MAX_DRIFT_ENTRIES).join('; ')}${changed.length > MAX_DRIFT_ENTRIES ? '; …' : ''}.`;
}
