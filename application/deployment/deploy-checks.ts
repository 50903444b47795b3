import { assessRisk } from '../../domain/actions/risk-floor.js';
import { scopeRefusal, type WriteScope } from '../../domain/actions/write-scope.js';
import type { DryRunResult, KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import type { Solution } from '../../domain/deployment/solution.js';
import { DomainError, ValidationError } from '../../domain/errors.js';
import { diffSegments } from '../../domain/operations/object-diff.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { StoredPolicies } from '../actions/policy-source.js';
import { policyVerdict } from '../actions/preview-actions.js';

/** What happened to one object of a deploy: its dry run, then its apply. */
export interface ObjectOutcome {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
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

/**
 * Dry-runs every object before any is applied, reading each live object to
 * tell create from update and to judge the risk from the diff, and checks
 * each dry run's object against `policies` (every stored one: a broken
 * policy, or policies that could not be read, refuse it like the API
 * server would). `refused` is true when any was refused: then nothing may
 * be applied.
 */
export async function dryRunAll(
  reader: ClusterReader,
  writer: ClusterWriter,
  objects: readonly KubeObject[],
  scope: WriteScope,
  policies?: StoredPolicies,
): Promise<{ outcomes: ObjectOutcome[]; existed: boolean[]; verdicts: DryRunResult[]; refused: boolean }> {
  const outcomes: ObjectOutcome[] = [];
  const existed: boolean[] = [];
  const verdicts: DryRunResult[] = [];
  for (const o of objects) {
    const live = await reader.get(refOf(o));
    existed.push(live !== null);
    const action = { type: 'apply' as const, manifest: o, description: named(o), risk: 'low' as const, rationale: 'deployManifests' };
    const answered = await writer.dryRunApply(o, { fieldManager: 'svc' });
    const broken = answered.accepted ? policyVerdict(action, answered.object, policies) : undefined;
    const verdict: DryRunResult = broken ? { accepted: false, ...broken, causes: [] } : answered;
    verdicts.push(verdict);
    const { risk, reasons } = assessRisk(action, {
      ownNamespace: scope.ownNamespace,
      diff: answered.accepted ? diffSegments(live, answered.object) : undefined,
    });
    const base = { ...refOf(o), risk, ...(reasons.length ? { riskReasons: reasons } : {}) };
    if (!verdict.accepted) outcomes.push({ ...base, outcome: 'refused', message: `${verdict.reason}: ${verdict.message}` });
    else {
      const changed = !live || diffSegments(live, verdict.object).length > 0;
      outcomes.push({
        ...base,
        outcome: live ? (changed ? 'updated' : 'unchanged') : 'created',
        ...(verdict.warnings?.length ? { warnings: verdict.warnings } : {}),
      });
    }
  }
  return { outcomes, existed, verdicts, refused: outcomes.some((o) => o.outcome === 'refused') };
}

/**
 * Applies the objects in order after dry runs that all passed; the first
 * failure stops the rest (`not-run`). Returns what was applied, as stored;
 * each outcome carries the apply's own Warning headers (`apply` collects
 * them in `warnings`) and its ledger entry. `apply` throws ApplyFailure (or
 * a DomainError) when the API server refuses.
 */
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
