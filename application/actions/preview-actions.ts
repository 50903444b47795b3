import { actionTarget, kubectlEquivalent, toOperation, type ClusterAction } from '../../domain/actions/cluster-action.js';
import { customResourceOperations, withOperations } from '../../domain/actions/custom-resource-patch.js';
import { assessRisk } from '../../domain/actions/risk-floor.js';
import { scopeRefusal, type WriteScope } from '../../domain/actions/write-scope.js';
import type { DryRunResult, KubeObject } from '../../domain/cluster/kube-types.js';
import { DependencyError, ExecutionError, ForbiddenError, NotConfiguredError } from '../../domain/errors.js';
import { diffSegments, formatPath, type SegmentChange } from '../../domain/operations/object-diff.js';
import { policyRefusal, type NamedPolicy } from '../../domain/orgdata/policy-constraint.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import { dryRunOperation } from './execute-actions.js';
import type { ProposedAction } from './proposed-action.js';

/** Diff entries shown per action. */
export const MAX_DIFF_ENTRIES = 100;

export const UNNAMED_REMOVAL_NOTE = 'removed, though the action does not name it: svc raised the risk to high';

/** What a preview checks besides the API server: the write allow-lists, svc's namespace, and the organisation's policies. */
export interface PreviewChecks {
  scope: WriteScope;
  policies?: readonly NamedPolicy[];
}

type Refusal = Extract<DryRunResult, { accepted: false }>;

/**
 * A kind the cluster does not serve, or a request it rejects outright, is a
 * refusal to show, not a failed run; so is an API server that fails or does
 * not answer (the proposal cannot be executed: nothing unpreviewed runs),
 * and so is the cluster's RBAC refusing the caller (SVC_KUBE_IMPERSONATE):
 * the preview says what they may not do; executing it is then a 403.
 */
async function refusalOf<T>(work: () => Promise<T>): Promise<T | Refusal> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ExecutionError && !(e instanceof NotConfiguredError)) return { accepted: false, reason: 'Rejected', message: e.message, causes: [] };
    if (e instanceof ForbiddenError) return { accepted: false, reason: 'Forbidden', message: e.message, causes: [] };
    if (e instanceof DependencyError) return { accepted: false, reason: 'Unavailable', message: `the preview could not be made: ${e.message}`, causes: [] };
    throw e;
  }
}

const refused = (v: unknown): v is Refusal => typeof v === 'object' && v !== null && (v as { accepted?: unknown }).accepted === false;

/**
 * Previews each action as svc will run it: a target outside the allow-lists
 * is refused before any request; otherwise the live object is read, the
 * action dry-run server-side (nothing is persisted) and the result diffed
 * against the live object, checked against the policies, and its risk
 * assessed from the kind, the namespace and the diff. The live object's
 * resourceVersion is kept as the precondition of the later write. Every
 * action is previewed, also after a refusal, so the caller sees all verdicts.
 */
export async function previewActions(
  reader: ClusterReader,
  writer: ClusterWriter,
  actions: ClusterAction[],
  now: Date,
  checks: PreviewChecks,
): Promise<ProposedAction[]> {
  const out: ProposedAction[] = [];
  for (const [i, action] of actions.entries()) out.push(await previewOne(reader, writer, action, i + 1, now, checks));
  return out;
}

async function previewOne(
  reader: ClusterReader,
  writer: ClusterWriter,
  action: ClusterAction,
  position: number,
  now: Date,
  checks: PreviewChecks,
): Promise<ProposedAction> {
  const target = actionTarget(action);
  const base = {
    action: position,
    type: action.type,
    description: action.description,
    rationale: action.rationale,
    target,
    kubectl: kubectlEquivalent(action),
  };
  const risked = (diff?: SegmentChange[]) => {
    const r = assessRisk(action, { ownNamespace: checks.scope.ownNamespace, diff });
    return { assessment: r, fields: { risk: r.risk, ...(r.reasons.length ? { riskReasons: r.reasons } : {}) } };
  };
  const outOfScope = scopeRefusal(target, checks.scope);
  if (outOfScope) {
    const effect = action.type === 'delete' ? 'delete' : 'update';
    return { ...base, ...risked().fields, effect, dryRun: { accepted: false, reason: 'OutsideWriteScope', message: outOfScope, causes: [] }, diff: [] };
  }
  const live = await refusalOf(() => reader.get(target));
  const liveObject = refused(live) ? null : (live as KubeObject | null);
  const version = liveObject?.metadata.resourceVersion;
  const pin = typeof version === 'string' && version ? version : undefined;
  // a custom resource's object patch is sent as the JSON Patch computed here: the dry run, the diff, the ledger and the write all use these operations
  const operations = customResourceOperations(action, liveObject);
  const sent = withOperations(action, operations);
  const computed = operations ? { jsonPatch: operations, kubectl: kubectlEquivalent(sent) } : {};
  const verdict: DryRunResult = refused(live)
    ? live
    : operations?.length === 0
      ? {
          accepted: false,
          reason: 'NoChange',
          message: `${target.kind} ${target.name} already has what the patch sets: there is nothing to change`,
          causes: [],
        }
      : await refusalOf(() => dryRunOperation(writer, toOperation(sent, now)));
  const effect = action.type === 'delete' ? 'delete' : liveObject ? 'update' : 'create';
  const pinned = pin ? { resourceVersion: pin } : {};
  if (!verdict.accepted) {
    const causes = verdict.causes.map(({ field, message }) => ({ ...(field ? { field } : {}), message }));
    return {
      ...base,
      ...computed,
      ...risked().fields,
      effect,
      dryRun: { accepted: false, reason: verdict.reason, message: verdict.message, causes },
      diff: [],
      ...pinned,
    };
  }
  const segments = action.type === 'delete' ? [] : diffSegments(liveObject, verdict.object);
  const { assessment, fields } = risked(segments);
  const flagged = new Set(assessment.unnamedRemovals);
  const diff = segments.map((c) => {
    const path = formatPath(c.segments);
    return { path, ...('from' in c ? { from: c.from } : {}), ...('to' in c ? { to: c.to } : {}), ...(flagged.has(path) ? { note: UNNAMED_REMOVAL_NOTE } : {}) };
  });
  const warnings = verdict.warnings?.length ? { warnings: verdict.warnings } : {};
  const violation = action.type === 'delete' ? undefined : policyRefusal(verdict.object, checks.policies ?? []);
  const dryRun = violation ? { accepted: false as const, reason: 'PolicyViolation', message: violation, causes: [] } : { accepted: true as const };
  return {
    ...base,
    ...computed,
    ...fields,
    effect,
    dryRun,
    diff: diff.slice(0, MAX_DIFF_ENTRIES),
    ...(diff.length > MAX_DIFF_ENTRIES ? { diffOmitted: diff.length - MAX_DIFF_ENTRIES } : {}),
    ...warnings,
    ...pinned,
  };
}
