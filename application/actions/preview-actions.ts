import {
  actionTarget,
  kubectlEquivalent,
  pinnedOperation,
  toOperation,
  type ClusterAction,
  type ClusterOperation,
} from '../../domain/actions/cluster-action.js';
import { customResourceOperations, withOperations } from '../../domain/actions/custom-resource-patch.js';
import { guardSettingsOf, type WriteScope } from '../../domain/actions/write-scope.js';
import type { ApiResourceInfo, DryRunResult, KubeObject, PatchBody } from '../../domain/cluster/kube-types.js';
import { DependencyError, ExecutionError, ForbiddenError, NotConfiguredError, ValidationError } from '../../domain/errors.js';
import { diffSegments, formatPath } from '../../domain/operations/object-diff.js';
import { targetFindings } from '../../domain/write-guard/content-risk.js';
import { refOf, resolveTarget, type ResolvedTarget } from '../../domain/write-guard/resolved-target.js';
import type { WriteAsSent } from '../../domain/write-guard/sent-write.js';
import { assessTarget, checkBeforeIo, judgeWrite, type GuardSettings } from '../../domain/write-guard/write-guard.js';
import { policyRefusal } from '../../domain/orgdata/policy-match.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import { dryRunOperation } from './execute-actions.js';
import { secretValuesWritten } from '../../domain/security/secret-values.js';
import { noteValuesWritten } from '../security/secret-scope.js';
import type { StoredPolicies } from './policy-source.js';
import type { ProposedAction } from './proposed-action.js';

/** Diff entries shown per action. */
export const MAX_DIFF_ENTRIES = 100;

export const UNNAMED_REMOVAL_NOTE = 'removed, though the action does not name it: svc raised the risk to high';

/** What a preview checks besides the API server: the write allow-lists, svc's namespace, and the organisation's policies (every stored one: PolicySource.stored). */
export interface PreviewChecks {
  scope: WriteScope;
  policies?: StoredPolicies;
}

/**
 * Why the object a write would leave (the dry run's answer) may not be
 * written under the organisation's policies: a broken policy
 * (`PolicyViolation`), or policies svc could not read (`PoliciesUnreadable`:
 * it writes nothing it cannot check). Deletes leave no object to check.
 */
export function policyVerdict(
  action: ClusterAction,
  result: KubeObject,
  policies: StoredPolicies | undefined,
): { reason: 'PolicyViolation' | 'PoliciesUnreadable'; message: string } | undefined {
  if (action.type === 'delete' || !policies) return undefined;
  if (policies.unreadable)
    return { reason: 'PoliciesUnreadable', message: `svc writes nothing it cannot check against the organisation's policies: ${policies.unreadable}` };
  const broken = policyRefusal(result, policies.policies);
  return broken ? { reason: 'PolicyViolation', message: broken } : undefined;
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
    // a malformed target (a kind `configmap`) is this action's refusal, not the whole run's
    if (e instanceof ValidationError) return { accepted: false, reason: 'Invalid', message: e.message, causes: [] };
    if (e instanceof ForbiddenError) return { accepted: false, reason: 'Forbidden', message: e.message, causes: [], byCaller: true };
    if (e instanceof DependencyError) return { accepted: false, reason: 'Unavailable', message: `the preview could not be made: ${e.message}`, causes: [] };
    throw e;
  }
}

const refused = (v: unknown): v is Refusal => typeof v === 'object' && v !== null && (v as { accepted?: unknown }).accepted === false;

/**
 * Previews each action as svc will run it, through the write guard
 * (domain/write-guard): the target is resolved from discovery (a kind the
 * cluster does not serve, or a namespace on a cluster-scoped kind, is
 * refused); the allow-lists and unsafe JSON Patch operations are refused
 * before any other request; otherwise the live object is read, the action
 * dry-run server-side (nothing is persisted), the result judged by
 * judgeWrite (its one risk and reasons, or a refusal such as an image
 * registry), diffed against the live object and checked against the
 * policies. The live object's resourceVersion is kept as the precondition of
 * the later write. Every action is previewed on its own, also after a
 * refusal, so the caller sees all verdicts and one bad action (even a
 * malformed one) refuses only itself.
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

/** The write the guard judges: the operation as the adapter will send it. */
export function writeAsSent(op: ClusterOperation): WriteAsSent {
  return op.method === 'patch' ? { verb: 'patch', patchType: op.patchType, patch: op.patch } : { verb: op.method };
}

/** The target as discovery resolves it, or why it cannot be written (the discovery lookup's own failure included). */
export async function resolveForWrite(reader: ClusterReader, action: ClusterAction): Promise<{ target: ResolvedTarget } | Refusal> {
  const asked = actionTarget(action);
  const served = await refusalOf(() => reader.resolveKind(asked.apiVersion, asked.kind));
  if (refused(served)) return served;
  const resolved = resolveTarget(asked, (served as ApiResourceInfo | null) ?? undefined);
  return 'target' in resolved ? resolved : { accepted: false, reason: 'InvalidTarget', message: resolved.refusal, causes: [] };
}

async function previewOne(
  reader: ClusterReader,
  writer: ClusterWriter,
  action: ClusterAction,
  position: number,
  now: Date,
  checks: PreviewChecks,
): Promise<ProposedAction> {
  const settings: GuardSettings = guardSettingsOf(checks.scope);
  const base = {
    action: position,
    type: action.type,
    description: action.description,
    rationale: action.rationale,
    target: actionTarget(action),
    kubectl: kubectlEquivalent(action),
  };
  // unknown (refused before the read): an update, as before the guard
  const effectOf = (live: KubeObject | null | undefined): ProposedAction['effect'] =>
    action.type === 'delete' ? 'delete' : live === null ? 'create' : 'update';
  const refusal = (verdict: Refusal, target: ResolvedTarget | undefined, write: WriteAsSent, extra: Partial<ProposedAction> = {}): ProposedAction => {
    const r = assessTarget(target, write, settings, action.risk);
    const causes = verdict.causes.map(({ field, message }) => ({ ...(field ? { field } : {}), message }));
    return {
      ...base,
      ...(target ? { target: refOf(target) } : {}),
      risk: r.risk,
      ...(r.riskReasons.length ? { riskReasons: r.riskReasons } : {}),
      effect: effectOf(undefined),
      dryRun: { accepted: false, reason: verdict.reason, message: verdict.message, causes, ...(verdict.byCaller ? { byCaller: true as const } : {}) },
      diff: [],
      ...extra,
    };
  };
  const asked = toOperation(action, now);
  const resolution = await resolveForWrite(reader, action);
  if (!('target' in resolution)) return refusal(resolution, undefined, writeAsSent(asked));
  const { target } = resolution;
  // what the action puts into a Secret is scrubbed by value from the answer, the ledger and what a model is sent
  noteValuesWritten(secretValuesWritten(refOf(target), action.type === 'apply' ? action.manifest : action.type === 'patch' ? action.patch : undefined));
  const early = checkBeforeIo(target, writeAsSent(asked), settings);
  if (early) return refusal({ accepted: false, reason: early.code, message: early.reason, causes: [] }, target, writeAsSent(asked));
  const live = await refusalOf(() => reader.get(refOf(target)));
  const liveObject = refused(live) ? null : (live as KubeObject | null);
  const version = liveObject?.metadata.resourceVersion;
  const uid = action.type === 'delete' ? liveObject?.metadata.uid : undefined;
  const pinned = {
    ...(typeof version === 'string' && version ? { resourceVersion: version } : {}),
    ...(typeof uid === 'string' && uid ? { uid } : {}),
  };
  // a custom resource's object patch is sent as the JSON Patch computed here: the dry run, the diff, the ledger and the write all use these operations
  const operations = customResourceOperations(action, liveObject);
  const sent = withOperations(action, operations);
  // an apply of an absent object is previewed (and later sent) as a create: it must still be absent then
  const operation = pinnedOperation(sent, now, !refused(live) && liveObject === null ? { create: true } : undefined);
  const write = {
    ...writeAsSent(operation),
    ...(operations && action.type === 'patch' ? { asked: { patchType: 'merge' as const, patch: action.patch as PatchBody } } : {}),
  };
  const computed = operations ? { jsonPatch: operations, kubectl: kubectlEquivalent(sent) } : {};
  const known = { ...computed, effect: refused(live) ? effectOf(undefined) : effectOf(liveObject), ...pinned };
  const unsafe = operations && checkBeforeIo(target, write, settings);
  if (unsafe) return refusal({ accepted: false, reason: unsafe.code, message: unsafe.reason, causes: [] }, target, write, known);
  const verdict: DryRunResult = refused(live)
    ? live
    : operations?.length === 0
      ? {
          accepted: false,
          reason: 'NoChange',
          message: `${target.kind} ${target.name} already has what the patch sets: there is nothing to change`,
          causes: [],
        }
      : await refusalOf(() => dryRunOperation(writer, operation));
  if (!verdict.accepted) return refusal(verdict, target, write, known);
  const result = action.type === 'delete' ? null : verdict.object;
  const judged = judgeWrite({ target, live: liveObject, result, write, settings, label: action.risk });
  if (!judged.allowed) return refusal({ accepted: false, reason: judged.code, message: judged.reason, causes: [] }, target, write, known);
  const segments = result ? diffSegments(liveObject, result) : [];
  const flagged = new Set(judged.unnamedRemovals);
  const diff = segments.map((c) => {
    const path = formatPath(c.segments);
    return { path, ...('from' in c ? { from: c.from } : {}), ...('to' in c ? { to: c.to } : {}), ...(flagged.has(path) ? { note: UNNAMED_REMOVAL_NOTE } : {}) };
  });
  const warnings = verdict.warnings?.length ? { warnings: verdict.warnings } : {};
  const violation = result ? policyVerdict(action, result, checks.policies) : undefined;
  const dryRun = violation ? { accepted: false as const, ...violation, causes: [] } : { accepted: true as const };
  const sensitive = targetFindings(target, settings.protectedNamespaces);
  return {
    ...base,
    target: refOf(target),
    ...known,
    risk: judged.risk,
    ...(judged.riskReasons.length ? { riskReasons: judged.riskReasons } : {}),
    ...(sensitive.length ? { sensitive } : {}),
    dryRun,
    diff: diff.slice(0, MAX_DIFF_ENTRIES),
    ...(diff.length > MAX_DIFF_ENTRIES ? { diffOmitted: diff.length - MAX_DIFF_ENTRIES } : {}),
    ...warnings,
  };
}
