import { describeTarget, scopeRefusal, type WriteScope } from '../../domain/actions/write-scope.js';
import { LedgerIntentError } from '../ledger/change-recorder.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import type { Solution } from '../../domain/deployment/solution.js';
import { DomainError, ValidationError } from '../../domain/errors.js';
import type { FieldChange } from '../../domain/operations/object-diff.js';
import { planDigestOf } from '../../domain/sessions/approval-session.js';
import { describeResolved, refOf as refOfTarget, type ResolvedTarget } from '../../domain/write-guard/resolved-target.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import { digestInputOf } from '../guarded-write/digest-input.js';
import type { GuardedWrite } from '../guarded-write/guarded-write.js';
import type { GuardedWriteResult, WriteRefusal } from '../guarded-write/write-request.js';

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

/** A deploy's preview: each object, the digest of the whole plan, and each object's guarded-write result (its dry run, for the ledger). */
export interface DeployPreview {
  objects: PreviewedObject[];
  planDigest: string;
  checked: GuardedWriteResult[];
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

/** Only the chosen solution's kinds, by the group and kind discovery resolved (never the apiVersion a model wrote: a Knative Service is not the core Service). */
function solutionRule(chosen: Set<string>): (target: ResolvedTarget) => WriteRefusal | undefined {
  return (target) => {
    if (chosen.has(`${target.group}/${target.kind}`)) return undefined;
    const kinds = [...chosen].map((k) => (k.startsWith('/') ? k.slice(1) : k)).join(', ') || 'none the cluster serves';
    return {
      reason: 'OutsideSolution',
      message: `${describeResolved(target)} is not one of the kinds of the solution chosen (${kinds}): svc deploys only those`,
      causes: [],
    };
  };
}

/**
 * Previews every object of a deploy through the one guarded-write pipeline
 * (GuardedWrite.check) before any is applied: the target resolved from
 * discovery; its group and kind one of the chosen solution's resources as
 * discovery resolves them; the allow-lists; the live object read; the
 * server-side dry run of the apply; the write guard's judgement of the dry
 * run's object against the live one (its one risk and reasons; an image
 * outside SVC_IMAGE_REGISTRIES refused); every stored policy; the redacted
 * diff. Each object is previewed on its own, also after a refusal, so every
 * verdict is shown. A failure of the API server or of a dependency, other
 * than discovery's, is thrown (the deploy answers it as such), as is the
 * caller's RBAC refusing a dry run (403). `planDigest` covers each object's
 * digest input (what is sent, the live version it was judged against, its
 * effect, risk and refusal): a plan that changed (or a live object that
 * moved) has another digest; values the API server assigns anew at every
 * dry run (a Service's clusterIP) do not count.
 */
export async function previewDeploy(guard: GuardedWrite, reader: ClusterReader, objects: readonly KubeObject[], solution: Solution): Promise<DeployPreview> {
  const admit = solutionRule(await chosenKinds(reader, solution));
  const policies = await guard.policies();
  const previewed: PreviewedObject[] = [];
  const checked: GuardedWriteResult[] = [];
  for (const o of objects) {
    const r = await guard.check({ ref: refOf(o), operation: { method: 'apply', manifest: o }, admit }, policies);
    if (r.refusal?.error && r.target) throw r.refusal.error;
    checked.push(r);
    previewed.push(previewedObject(r));
  }
  const planDigest = planDigestOf({ deploy: checked.map(digestInputOf) });
  return { objects: previewed, planDigest, checked, refused: previewed.some((p) => p.effect === 'refused') };
}

/** One object as the deploy's preview shows it. */
function previewedObject(r: GuardedWriteResult): PreviewedObject {
  const version = r.resourceVersion ? { resourceVersion: r.resourceVersion } : {};
  const risk = { risk: r.risk, ...(r.riskReasons.length ? { riskReasons: r.riskReasons } : {}) };
  const ref = r.target ? refOfTarget(r.target) : r.ref;
  if (r.refusal) {
    // discovery failing is the object's refusal (Unavailable); every other failure was thrown
    const message = r.target ? r.refusal.message : `${describeTarget(r.ref)}: ${r.refusal.message}`;
    return { ...ref, effect: 'refused', ...risk, refusal: { reason: r.refusal.reason, message }, diff: [], ...version };
  }
  return {
    ...ref,
    // judged on the objects themselves: a change of a Secret's values alone shows as *** -> *** but is an update
    effect: r.effect === 'create' ? 'create' : r.changed ? 'update' : 'unchanged',
    ...risk,
    diff: r.diff,
    ...(r.diffOmitted ? { diffOmitted: r.diffOmitted } : {}),
    ...version,
    ...(r.warnings ? { warnings: r.warnings } : {}),
  };
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
