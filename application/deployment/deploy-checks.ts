import { guardSettingsOf, scopeRefusal, type WriteScope } from '../../domain/actions/write-scope.js';
import { LedgerIntentError } from '../ledger/change-recorder.js';
import type { DryRunResult, KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import type { Solution } from '../../domain/deployment/solution.js';
import { DomainError, ValidationError } from '../../domain/errors.js';
import { diffObjects, diffSegments, type FieldChange } from '../../domain/operations/object-diff.js';
import { redactObject } from '../../domain/ledger/object-state.js';
import { planDigestOf } from '../../domain/sessions/approval-session.js';
import { describeResolved, refOf as refOfTarget, resolveTarget, type ResolvedTarget } from '../../domain/write-guard/resolved-target.js';
import { assessTarget, checkBeforeIo, judgeWrite } from '../../domain/write-guard/write-guard.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { StoredPolicies } from '../actions/policy-source.js';
import { MAX_DIFF_ENTRIES, policyVerdict } from '../actions/preview-actions.js';

/** What happened to one object of a deploy: its dry run, then its apply. */
export interface ObjectOutcome extends ResourceRef {
  /** svc's risk for writing this object (kind, namespace, what its dry run changes). */
  risk: 'low' | 'medium' | 'high';
  riskReasons?: string[];
  /** `refused`: its dry run was refused (nothing was applied); `not-run`: an earlier object failed or was refused. */
  outcome: 'created' | 'updated' | 'unchanged' | 'refused' | 'failed' | 'not-run';
  message?: string;
  /** The API server's `Warning` headers on its apply (on its dry run when it was not applied). */
  warnings?: string[];
  /** The change ledger entry of its apply (applied or refused). */
  ledgerId?: string;
}

/** One object's apply: the object as stored, and its ledger entry when the ledger recorded it. */
export interface AppliedObject {
  object: KubeObject;
  ledgerId?: string;
}

/** An apply the API server refused (or that failed), with the ledger entry that recorded it. */
export class ApplyFailure extends Error {
  constructor(
    readonly refusal: DomainError,
    readonly ledgerId?: string,
  ) {
    super(refusal.message);
  }
}

export const refOf = (o: KubeObject): ResourceRef => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name,
  ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
});
const named = (o: KubeObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/**
 * Refuses (400, before any request) objects of a kind the solution does not
 * name, and objects outside SVC_WRITE_NAMESPACES / SVC_WRITE_KINDS: a
 * ClusterRoleBinding cannot ride along with a web app.
 */
export function assertDeployable(objects: readonly KubeObject[], solution: Solution, scope: WriteScope): void {
  const kinds = new Set(solution.resources.map((r) => `${r.apiVersion}/${r.kind}`));
  const foreign = objects.filter((o) => !kinds.has(`${o.apiVersion}/${o.kind}`));
  if (foreign.length)
    throw new ValidationError(
      `deployManifests refuses ${foreign.map(named).join(', ')}: the solution's resources are ${[...kinds].join(', ')}. Generate the manifests again (generateManifests) or choose another solution`,
    );
  const outside = objects.map((o) => scopeRefusal(refOf(o), scope)).filter((r): r is string => r !== undefined);
  if (outside.length) throw new ValidationError(`deployManifests refuses to write: ${outside.join('; ')}`);
}

/** One object of a deploy as the write guard previewed it: what applying it would do, judged on the dry run's object against the live one. */
export interface PreviewedObject extends ResourceRef {
  /** What the apply would do: create (absent now), update, or nothing (`unchanged`); `refused` when the guard or the API server refuses it. */
  effect: 'create' | 'update' | 'unchanged' | 'refused';
  /** svc's risk (the write guard's, never the model's), with every reason. */
  risk: 'low' | 'medium' | 'high';
  riskReasons?: string[];
  /** With `refused`: the guard's or the API server's reason code (OutsideSolution, InvalidTarget, OutsideWriteScope, ImageRegistry, PolicyViolation, PoliciesUnreadable, or the API server's) and why. */
  refusal?: { reason: string; message: string };
  /** The live object against the dry run's (Secret values and the last-applied annotation as `***`). */
  diff: FieldChange[];
  diffOmitted?: number;
  /** The resourceVersion of the live object the preview read (absent when it is created). */
  resourceVersion?: string;
  warnings?: string[];
}

/** A deploy's preview: each object, the digest of the whole plan, and the dry runs' verdicts (for the ledger). */
export interface DeployPreview {
  objects: PreviewedObject[];
  planDigest: string;
  verdicts: DryRunResult[];
  refused: boolean;
}

/** The group and kind of each resource of the solution the caller chose, as discovery resolves them (a kind the cluster does not serve names nothing). */
async function chosenKinds(reader: ClusterReader, solution: Solution): Promise<Set<string>> {
  const out = new Set<string>();
  for (const r of solution.resources) {
    const served = await reader.resolveKind(r.apiVersion, r.kind).catch(() => null);
    if (served && served.kind === r.kind) out.add(`${served.group}/${served.kind}`);
  }
  return out;
}

const REDACTED_DIFF = (kind: string, o: KubeObject | null): KubeObject | null => (o ? (redactObject(kind, o) as KubeObject) : null);

/**
 * Previews every object of a deploy through the write guard before any is
 * applied (domain/write-guard): the target resolved from discovery (a kind
 * the cluster does not serve, a namespace on a cluster-scoped kind, or a
 * namespaced kind without one, refused); its group and kind must be one of
 * the chosen solution's resources as discovery resolves them (never the
 * apiVersion string a model wrote: a Knative Service is not the core
 * Service); the allow-lists (checkBeforeIo); the live object read; the
 * server-side dry run; the guard's judgement of the dry run's object against
 * the live one (its one risk and reasons; an image outside
 * SVC_IMAGE_REGISTRIES refused); every stored policy checked on it. Each
 * object is previewed on its own, also after a refusal, so every verdict is
 * shown. `planDigest` covers every object as sent, the live version each
 * preview read (the diff follows from both), the effects, risks and
 * refusals: a plan that changed (or a live object that moved) has another
 * digest; values the API server assigns anew at every dry run (a Service's
 * clusterIP) do not count.
 */
export async function previewDeploy(
  reader: ClusterReader,
  writer: ClusterWriter,
  objects: readonly KubeObject[],
  solution: Solution,
  scope: WriteScope,
  policies?: StoredPolicies,
): Promise<DeployPreview> {
  const settings = guardSettingsOf(scope);
  const chosen = await chosenKinds(reader, solution);
  const previewed: PreviewedObject[] = [];
  const verdicts: DryRunResult[] = [];
  const write = { verb: 'apply' as const };
  for (const o of objects) {
    const asked = refOf(o);
    const refuse = (reason: string, message: string, target?: ResolvedTarget, extra: Partial<PreviewedObject> = {}) => {
      const r = assessTarget(target, write, settings);
      verdicts.push({ accepted: false, reason, message, causes: [] });
      previewed.push({
        ...(target ? refOfTarget(target) : asked),
        effect: 'refused',
        risk: r.risk,
        ...(r.riskReasons.length ? { riskReasons: r.riskReasons } : {}),
        refusal: { reason, message },
        diff: [],
        ...extra,
      });
    };
    const served = await reader.resolveKind(o.apiVersion, o.kind).catch((e: unknown) => {
      if (e instanceof DomainError) return e;
      throw e;
    });
    if (served instanceof DomainError) {
      refuse('Unavailable', `${named(o)}: discovery could not resolve its kind: ${served.message}`);
      continue;
    }
    const resolved = resolveTarget(asked, served ?? undefined);
    if (!('target' in resolved)) {
      refuse('InvalidTarget', resolved.refusal);
      continue;
    }
    const { target } = resolved;
    if (!chosen.has(`${target.group}/${target.kind}`)) {
      refuse(
        'OutsideSolution',
        `${describeResolved(target)} is not one of the kinds of the solution chosen (${[...chosen].map((k) => (k.startsWith('/') ? k.slice(1) : k)).join(', ') || 'none the cluster serves'}): svc deploys only those`,
        target,
      );
      continue;
    }
    const early = checkBeforeIo(target, write, settings);
    if (early) {
      refuse(early.code, early.reason, target);
      continue;
    }
    const live = await reader.get(refOfTarget(target));
    const version = typeof live?.metadata.resourceVersion === 'string' ? { resourceVersion: live.metadata.resourceVersion } : {};
    const answered = await writer.dryRunApply(o, { fieldManager: 'svc' });
    if (!answered.accepted) {
      refuse(answered.reason, answered.message, target, version);
      continue;
    }
    const judged = judgeWrite({ target, live, result: answered.object, write, settings });
    if (!judged.allowed) {
      refuse(judged.code, judged.reason, target, version);
      continue;
    }
    const action = { type: 'apply' as const, manifest: o, description: named(o), risk: 'low' as const, rationale: 'deployManifests' };
    const broken = policyVerdict(action, answered.object, policies);
    if (broken) {
      refuse(broken.reason, broken.message, target, version);
      continue;
    }
    verdicts.push(answered);
    const diff = diffObjects(REDACTED_DIFF(target.kind, live), REDACTED_DIFF(target.kind, answered.object));
    previewed.push({
      ...refOfTarget(target),
      // judged on the objects themselves: a change of a Secret's values alone shows as *** -> *** but is an update
      effect: live ? (diffSegments(live, answered.object).length ? 'update' : 'unchanged') : 'create',
      risk: judged.risk,
      ...(judged.riskReasons.length ? { riskReasons: judged.riskReasons } : {}),
      diff: diff.slice(0, MAX_DIFF_ENTRIES),
      ...(diff.length > MAX_DIFF_ENTRIES ? { diffOmitted: diff.length - MAX_DIFF_ENTRIES } : {}),
      ...version,
      ...(answered.warnings?.length ? { warnings: answered.warnings } : {}),
    });
  }
  // what is sent, the live version each object is judged against, and svc's verdicts: not the dry runs' server-assigned values (a Service's clusterIP, a uid), which differ with every dry run
  const planDigest = planDigestOf({
    objects,
    previewed: previewed.map(({ diff: _diff, diffOmitted: _omitted, warnings: _warnings, ...verdict }) => verdict),
  });
  return { objects: previewed, planDigest, verdicts, refused: previewed.some((p) => p.effect === 'refused') };
}

/** The outcome each previewed object starts with: what the apply will do, or its refusal. */
export function plannedOutcome(p: PreviewedObject): ObjectOutcome {
  const base = {
    apiVersion: p.apiVersion,
    kind: p.kind,
    name: p.name,
    ...(p.namespace ? { namespace: p.namespace } : {}),
    risk: p.risk,
    ...(p.riskReasons ? { riskReasons: p.riskReasons } : {}),
  };
  if (p.refusal) return { ...base, outcome: 'refused', message: `${p.refusal.reason}: ${p.refusal.message}` };
  const outcome = p.effect === 'create' ? 'created' : p.effect === 'update' ? 'updated' : 'unchanged';
  return { ...base, outcome, ...(p.warnings ? { warnings: p.warnings } : {}) };
}

/**
 * Applies the objects in order after dry runs that all passed; the first
 * failure stops the rest (`not-run`). Returns what was applied, as stored;
 * each outcome carries the apply's own Warning headers (`apply` collects
 * them in `warnings`) and its ledger entry. `apply` throws ApplyFailure (or
 * a DomainError) when the API server refuses.
 */
function appliedBefore(objects: readonly KubeObject[], outcomes: ObjectOutcome[]): string {
  if (!objects.length) return 'No object was applied';
  const listed = objects.map((o, i) => `${o.kind}/${o.metadata.name}${outcomes[i]?.ledgerId ? ` (change ledger entry ${outcomes[i].ledgerId})` : ''}`);
  return `Applied before it: ${listed.join(', ')}. The objects after it were not applied`;
}

export async function applyAll(
  apply: (object: KubeObject, index: number, warnings: string[]) => Promise<AppliedObject>,
  objects: readonly KubeObject[],
  planned: ObjectOutcome[],
): Promise<{ outcomes: ObjectOutcome[]; applied: KubeObject[] }> {
  const outcomes: ObjectOutcome[] = [];
  const applied: KubeObject[] = [];
  let failed = false;
  for (const [i, o] of objects.entries()) {
    if (failed) {
      outcomes.push({ ...planned[i], outcome: 'not-run', message: 'an earlier object failed' });
      continue;
    }
    const { warnings: _dryRun, ...rest } = planned[i];
    const written: string[] = [];
    try {
      const done = await apply(o, i, written);
      applied.push(done.object);
      outcomes.push({ ...rest, ...(written.length ? { warnings: written } : {}), ...(done.ledgerId ? { ledgerId: done.ledgerId } : {}) });
    } catch (e) {
      // the ledger could not record this object's intent: it was not sent, and the deploy stops as a 500 naming what is live
      if (e instanceof LedgerIntentError) throw new LedgerIntentError(`${e.message}. ${appliedBefore(objects.slice(0, i), outcomes)}`, e.details);
      const cause = e instanceof ApplyFailure ? e.refusal : e;
      if (!(cause instanceof DomainError)) throw e;
      failed = true;
      const ledgerId = e instanceof ApplyFailure ? e.ledgerId : undefined;
      const message = ledgerId ? `${cause.message} (change ledger entry ${ledgerId})` : cause.message;
      outcomes.push({ ...planned[i], outcome: 'failed', message, ...(ledgerId ? { ledgerId } : {}) });
    }
  }
  return { outcomes, applied };
}
