import { actionTarget, type ClusterAction } from '../../domain/actions/cluster-action.js';
import type { Caller } from '../../domain/auth/caller.js';
import type { ActionOutcome } from './execute-actions.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import {
  judgeable,
  judgeWorkload,
  overallHealth,
  POD_BEARING_KINDS,
  type ContainerObservation,
  type Health,
  type WarningObservation,
  type WorkloadJudgement,
  type WorkloadObservation,
} from '../../domain/cluster/workload-health.js';
import { ConflictError, DomainError } from '../../domain/errors.js';
import type { InverseChange } from '../../domain/ledger/change-entry.js';
import { asJsonObject } from '../../domain/json-object.js';
import { shellWord } from '../../domain/shell-word.js';
import { describeTarget } from '../../domain/actions/write-scope.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { RevertChange } from '../ledger/revert-change.js';
import { refKey, uniqueRefs } from './await-rollouts.js';
import { currentRun, reportProgress } from '../runs/run-scope.js';
import { requireDependencies } from '../required-deps.js';
import type { ExecutionVerifier, VerifyInput } from './execution-verifier.js';

export type { ExecutionVerifier, VerifyInput } from './execution-verifier.js';

export type OnFailure = 'revert' | 'report';
export const ON_FAILURE_VALUES = ['revert', 'report'] as const;

export interface VerifySettings {
  /** SVC_VERIFY_WINDOW_MS: how long the changed objects are watched after the write (the run's deadline lowers it); 0: one look. */
  windowMs: number;
  /** How often they are read within the window; default min(1000, window / 5), at least 10. */
  intervalMs?: number;
  /** SVC_ON_FAILURE_DEFAULT: onFailure when the call sends none; unset: `report` for manual execution, `revert` for automatic. */
  onFailureDefault?: OnFailure;
}

/** One write of the execution, in the order it was made. */
export interface ExecutedWrite {
  target: ResourceRef;
  /** The write's change-ledger entry; absent when it was not recorded (then svc cannot revert it). */
  ledgerId?: string;
  /** A delete: nothing left to judge. */
  deleted?: boolean;
}

export interface ObjectVerdict {
  target: ResourceRef;
  health: Health;
  evidence: string[];
}

/** How to revert one change by hand (the `report` answer): the REST call and the svc CLI line. */
export interface RevertCall {
  ledgerId: string;
  method: 'POST';
  path: string;
  body: Record<string, never>;
  cli: string;
}

export interface RevertedWrite {
  ledgerId: string;
  /** The ledger entry of the revert (its `revertOf` is `ledgerId`; GET /changes/{ledgerId} answers it as `revertedBy`). */
  revertId: string;
  target: ResourceRef;
}

export interface UnrevertedWrite {
  ledgerId?: string;
  target: ResourceRef;
  reason: string;
  /** A revert that was sent and failed is recorded too: its entry. */
  revertId?: string;
  /** The last resort, for a person: what would undo it by hand. */
  kubectl?: string[];
}

/** The deterministic verdict on an execution, and what was done about a degraded one. */
export interface ExecutionVerification {
  verdict: Health;
  /** One line per finding, `Deployment x/web: ...`. */
  evidence: string[];
  objects: ObjectVerdict[];
  windowMs: number;
  observedMs: number;
  observations: number;
  onFailure: OnFailure;
  /** With degraded and onFailure revert: each write undone, newest first. */
  reverted?: RevertedWrite[];
  /** With degraded and onFailure revert: each write that could not be undone, and why. */
  notReverted?: UnrevertedWrite[];
  /** With degraded and onFailure report: the calls that revert, newest first. */
  revertCalls?: RevertCall[];
  summary: string;
}

/** What was read before the write: one observation per object the execution changes. */
export type VerifySnapshot = ReadonlyMap<string, WorkloadObservation>;

const EVENT_LIMIT = 500;

/** onFailure for this execution: the caller's, else the configured default, else report (manual) or revert (automatic). */
export function onFailureFor(given: OnFailure | undefined, settings: VerifySettings | undefined, automatic: boolean): OnFailure {
  return given ?? settings?.onFailureDefault ?? (automatic ? 'revert' : 'report');
}

/**
 * Verify or revert. Before the write: `snapshot` reads each object the
 * execution changes (its pods' containers and Warning events too). After it:
 * `verify` reads them again over the settle window (bounded by what is left of
 * the run) and judges each against its snapshot (workload-health.ts): a
 * degraded object ends the wait at once. On `degraded` with onFailure
 * `revert`, every recorded write of the execution is undone, newest first,
 * through RevertChange: the same guard as a person's revert (dry run, pinned
 * to the version read, refused when the object changed since svc wrote it,
 * so someone else's change is reported, never overwritten). With `report`
 * the answer carries the calls that would revert. Each step is a `verify` run event.
 */
export class VerifyExecution implements ExecutionVerifier {
  private readonly intervalMs: number;

  constructor(
    private readonly reader: ClusterReader,
    private readonly clock: Clock & Timers,
    readonly settings: VerifySettings,
    private readonly revert: RevertChange,
    private readonly ledger: ChangeLedger,
  ) {
    requireDependencies('VerifyExecution', { reader, clock, settings, revert, ledger }, ['reader', 'clock', 'settings', 'revert', 'ledger']);
    this.intervalMs = settings.intervalMs ?? Math.max(10, Math.min(1000, Math.floor(settings.windowMs / 5)));
  }

  async snapshot(targets: readonly ResourceRef[]): Promise<VerifySnapshot> {
    const seen = new Map<string, WorkloadObservation>();
    for (const t of targets) if (!seen.has(refKey(t))) seen.set(refKey(t), await this.observe(t));
    reportProgress('verify', { step: 'snapshot', objects: seen.size });
    return seen;
  }

  async verify(input: VerifyInput): Promise<ExecutionVerification> {
    const started = this.clock.now();
    const deleted = new Set(input.writes.filter((w) => w.deleted).map((w) => refKey(w.target)));
    const targets = uniqueRefs(input.writes.map((w) => w.target)).filter((t) => !deleted.has(refKey(t)));
    const windowMs = Math.max(0, Math.min(this.settings.windowMs, input.deadlineMs));
    const end = started + windowMs;
    // a clock that does not move (or moves oddly) still ends the window: at most one look per interval, and one more
    const maxObservations = Math.ceil(windowMs / this.intervalMs) + 2;
    let judged: WorkloadJudgement[];
    let observations = 0;
    let last: Health | undefined;
    for (;;) {
      const windowOver = this.clock.now() >= end || observations + 1 >= maxObservations || currentRun()?.signal.aborted === true;
      judged = [];
      for (const t of targets) {
        const after = await this.observe(t);
        if (!judgeable(t.kind, after.object ?? input.snapshot.get(refKey(t))?.object ?? null) && after.error === undefined) continue;
        judged.push(judgeWorkload(t, input.snapshot.get(refKey(t)), after, windowOver));
      }
      observations += 1;
      const now = overallHealth(judged);
      if (now !== last) reportProgress('verify', { step: 'observed', verdict: now, afterMs: this.clock.now() - started });
      last = now;
      if (windowOver || judged.some((j) => j.final && j.health === 'degraded')) break;
      await this.sleep(Math.min(this.intervalMs, Math.max(0, end - this.clock.now())));
    }
    const verdict = overallHealth(judged);
    const objects = judged.map(({ target, health, evidence }) => ({ target, health, evidence }));
    const evidence = judged
      .filter((j) => j.health === verdict || verdict === 'healthy')
      .flatMap((j) => j.evidence.map((e) => `${describeTarget(j.target)}: ${e}`));
    reportProgress('verify', { step: 'verdict', verdict, evidence: evidence.slice(0, 3) });
    const base = { verdict, evidence, objects, windowMs, observedMs: this.clock.now() - started, observations, onFailure: input.onFailure };
    if (verdict !== 'degraded') return { ...base, summary: summaryOf(verdict, evidence, targets.length) };
    const recorded = [...input.writes].reverse();
    if (input.onFailure === 'report') {
      const revertCalls = recorded.filter((w) => w.ledgerId).map((w) => revertCall(w.ledgerId!));
      const unrecorded = recorded.filter((w) => !w.ledgerId);
      return {
        ...base,
        revertCalls,
        ...(unrecorded.length ? { notReverted: unrecorded.map((w) => ({ target: w.target, reason: 'the change ledger did not record this write' })) } : {}),
        summary: `The change made things worse (${evidence.slice(0, 3).join('; ')}); it was left in place (onFailure report). ${
          revertCalls.length
            ? `To undo it: ${revertCalls.map((c) => c.cli).join(', then ')}.`
            : 'The change ledger recorded none of its writes: undo it by hand.'
        }`,
      };
    }
    const { reverted, notReverted } = await this.revertAll(recorded, input.caller);
    return {
      ...base,
      reverted,
      ...(notReverted.length ? { notReverted } : {}),
      summary: revertSummary(evidence, reverted, notReverted),
    };
  }

  private async revertAll(
    writes: readonly ExecutedWrite[],
    caller: Caller | undefined,
  ): Promise<{ reverted: RevertedWrite[]; notReverted: UnrevertedWrite[] }> {
    const reverted: RevertedWrite[] = [];
    const notReverted: UnrevertedWrite[] = [];
    for (const w of writes) {
      if (!w.ledgerId) {
        notReverted.push({ target: w.target, reason: 'the change ledger did not record this write, so svc cannot revert it safely' });
        continue;
      }
      if (!caller) {
        notReverted.push({ ledgerId: w.ledgerId, target: w.target, reason: 'reverting is not available here (no caller to revert for)' });
        continue;
      }
      try {
        const done = await this.revert.execute({ id: w.ledgerId }, caller);
        reverted.push({ ledgerId: w.ledgerId, revertId: done.revert.id, target: w.target });
        reportProgress('verify', { step: 'reverted', ledgerId: w.ledgerId, revertId: done.revert.id });
      } catch (e) {
        if (!(e instanceof DomainError)) throw e;
        const details = asJsonObject(e.details);
        const revertedBy = e instanceof ConflictError && typeof details.revertedBy === 'string' ? details.revertedBy : undefined;
        if (revertedBy) {
          reverted.push({ ledgerId: w.ledgerId, revertId: revertedBy, target: w.target });
          continue;
        }
        const revertId = typeof details.revertId === 'string' ? details.revertId : undefined;
        const kubectl = await this.lastResort(w);
        notReverted.push({ ledgerId: w.ledgerId, target: w.target, reason: e.message, ...(revertId ? { revertId } : {}), ...(kubectl ? { kubectl } : {}) });
        reportProgress('verify', { step: 'revert-failed', ledgerId: w.ledgerId, reason: e.message.slice(0, 300) });
      }
    }
    return { reverted, notReverted };
  }

  /** The kubectl commands that would undo a write by hand, from its recorded inverse (a person checks the object first). */
  private async lastResort(w: ExecutedWrite): Promise<string[] | undefined> {
    const inverse = w.ledgerId ? (await this.ledger.get(w.ledgerId).catch(() => undefined))?.inverse : undefined;
    return inverse ? kubectlFor(w.target, inverse) : undefined;
  }

  /** One object as it is: the object, its pods' containers and the Warning events about it; never throws. */
  private async observe(t: ResourceRef): Promise<WorkloadObservation> {
    try {
      const object = await this.reader.get(t);
      if (!object) return { object: null, containers: [], warnings: [] };
      const pods = POD_BEARING_KINDS.has(t.kind) || t.kind === 'Service' ? await this.podsOf(object) : [];
      if (t.kind === 'Service') return { object, containers: [], warnings: [], ...(await this.endpointsOf(t, pods)) };
      if (!POD_BEARING_KINDS.has(t.kind)) return { object, containers: [], warnings: [] };
      return { object, containers: pods.flatMap(containersOf), warnings: await this.warningsAbout(t, pods) };
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      return { object: null, containers: [], warnings: [], error: e.message };
    }
  }

  /** The pods the object's selector picks (a Service's `spec.selector`, a workload's `spec.selector.matchLabels`). */
  private async podsOf(o: KubeObject): Promise<KubeObject[]> {
    const spec = asJsonObject(o.spec);
    const labels = asJsonObject(o.kind === 'Service' ? spec.selector : asJsonObject(spec.selector).matchLabels);
    const selector = Object.entries(labels)
      .filter(([, v]) => typeof v === 'string')
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
    if (!selector) return [];
    return (await this.reader.list({ apiVersion: 'v1', kind: 'Pod', namespace: o.metadata.namespace, labelSelector: selector, limit: 500 })).items;
  }

  /** Ready addresses of the Service's Endpoints; where they cannot be read, its ready pods (what the endpoints controller would list). */
  private async endpointsOf(t: ResourceRef, pods: KubeObject[]): Promise<{ endpoints: number }> {
    try {
      const ep = await this.reader.get({ apiVersion: 'v1', kind: 'Endpoints', name: t.name, namespace: t.namespace });
      if (ep) {
        const subsets = Array.isArray(ep.subsets) ? ep.subsets.map(asJsonObject) : [];
        return { endpoints: subsets.reduce((n, s) => n + (Array.isArray(s.addresses) ? s.addresses.length : 0), 0) };
      }
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
    }
    return { endpoints: pods.filter(podReady).length };
  }

  private async warningsAbout(t: ResourceRef, pods: KubeObject[]): Promise<WarningObservation[]> {
    const names = new Set(pods.map((p) => p.metadata.name));
    const prefix = `${t.name}-`;
    const events = await this.reader.events({ namespace: t.namespace, limit: EVENT_LIMIT });
    return events
      .filter((e) => e.type === 'Warning')
      .filter(({ involvedObject: o }) => {
        if (o.kind === t.kind) return o.name === t.name;
        if (o.kind === 'Pod') return names.has(o.name) || o.name.startsWith(prefix);
        return (o.kind === 'ReplicaSet' || o.kind === 'ControllerRevision') && o.name.startsWith(prefix);
      })
      .map((e) => ({ object: `${e.involvedObject.kind} ${e.involvedObject.name}`, reason: e.reason, message: e.message, count: e.count }));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.schedule(Math.max(0, ms), resolve));
  }
}

function podReady(p: KubeObject): boolean {
  const conditions = Array.isArray(asJsonObject(p.status).conditions) ? (asJsonObject(p.status).conditions as unknown[]).map(asJsonObject) : [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

function containersOf(p: KubeObject): ContainerObservation[] {
  const status = asJsonObject(p.status);
  const all = [status.initContainerStatuses, status.containerStatuses].flatMap((l) => (Array.isArray(l) ? l.map(asJsonObject) : []));
  return all.map((c) => {
    const waiting = asJsonObject(asJsonObject(c.state).waiting).reason;
    const terminated = asJsonObject(asJsonObject(c.lastState).terminated).reason;
    return {
      pod: p.metadata.name,
      container: String(c.name ?? ''),
      restarts: typeof c.restartCount === 'number' ? c.restartCount : 0,
      ...(typeof waiting === 'string' ? { waiting } : {}),
      ...(typeof terminated === 'string' ? { lastTerminated: terminated } : {}),
    };
  });
}

export function revertCall(ledgerId: string): RevertCall {
  const path = `/api/v1/changes/${encodeURIComponent(ledgerId)}/revert`;
  return { ledgerId, method: 'POST', path, body: {}, cli: `svc changes revert ${shellWord(ledgerId)}` };
}

/** By hand: the recorded inverse as kubectl (a Deployment also by `rollout undo`). */
export function kubectlFor(t: ResourceRef, inverse: InverseChange): string[] {
  const resource = `${t.kind.toLowerCase()}${t.apiVersion.includes('/') ? `.${t.apiVersion.split('/')[1]}.${t.apiVersion.split('/')[0]}` : ''}/${t.name}`;
  const ns = t.namespace ? ` -n ${shellWord(t.namespace)}` : '';
  switch (inverse.method) {
    case 'patch':
      return [
        `kubectl patch ${shellWord(resource)}${ns} --type=merge -p ${shellWord(JSON.stringify(inverse.body))}`,
        ...(t.kind === 'Deployment' ? [`kubectl rollout undo deployment/${shellWord(t.name)}${ns}`] : []),
      ];
    case 'delete':
      return [`kubectl delete ${shellWord(resource)}${ns}`];
    case 'create':
      return [`kubectl apply --server-side --field-manager=svc -f - <<'EOF'\n${JSON.stringify(inverse.body, null, 2)}\nEOF`];
  }
}

function summaryOf(verdict: Health, evidence: string[], judged: number): string {
  if (verdict === 'healthy') return `Verified: every changed object is healthy (${evidence.slice(0, 3).join('; ')}).`;
  if (judged === 0) return 'Nothing to verify: the execution changed no object whose health svc can read.';
  return `Could not tell whether the change helped or hurt: ${evidence.slice(0, 3).join('; ') || 'no health to read'}.`;
}

function revertSummary(evidence: string[], reverted: RevertedWrite[], notReverted: UnrevertedWrite[]): string {
  const why = `The change made things worse (${evidence.slice(0, 3).join('; ')})`;
  const done = reverted.length ? ` Reverted ${reverted.map((r) => `${r.ledgerId} by ${r.revertId}`).join(', ')}.` : '';
  if (notReverted.length === 0) return `${why}; svc reverted it.${done}`;
  const kept = notReverted.map(
    (n) => `${n.ledgerId ?? describeTarget(n.target)}: ${n.reason}${n.kubectl ? ` (by hand, as a last resort: ${n.kubectl[0]})` : ''}`,
  );
  return `${why}; svc could NOT revert all of it.${done} Not reverted: ${kept.join('; ')}`;
}

/** The writes an execution made, in order: each applied action's target and ledger entry. */
export function executedWrites(actions: readonly ClusterAction[], outcomes: readonly ActionOutcome[]): ExecutedWrite[] {
  return actions.flatMap((a, i) =>
    outcomes[i]?.status === 'applied'
      ? [{ target: actionTarget(a), ...(outcomes[i].ledgerId ? { ledgerId: outcomes[i].ledgerId } : {}), ...(a.type === 'delete' ? { deleted: true } : {}) }]
      : [],
  );
}

/** The verdict as lines for a model (given as delimited data, never instructions): verdict, evidence, what was reverted. */
export function verdictLines(v: ExecutionVerification): string {
  return [
    `verdict: ${v.verdict}`,
    ...v.evidence.map((e) => `evidence: ${e}`),
    ...(v.reverted ?? []).map((r) => `reverted: ${r.ledgerId} by ${r.revertId} (${describeTarget(r.target)})`),
    ...(v.notReverted ?? []).map((n) => `not reverted: ${n.ledgerId ?? describeTarget(n.target)}: ${n.reason}`),
    ...(v.verdict === 'degraded' && v.onFailure === 'report' ? ['left in place: onFailure report'] : []),
  ].join('\n');
}

/** A degraded verdict as the next step: what was reverted (or the calls that revert), and what could not be. */
export function healthStep(health: ExecutionVerification, where: string): string {
  const calls = health.revertCalls?.length ? ` REST: ${health.revertCalls.map((c) => `${c.method} ${c.path} ${JSON.stringify(c.body)}`).join(', then ')}.` : '';
  return `${health.summary}${calls} See ${where} for the evidence.`;
}
