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
import type { ChangeEntry, ChangeRecord, InverseChange } from '../../domain/ledger/change-entry.js';
import { scrubRecord } from '../../domain/ledger/ledger-scrub.js';
import { verdictRecord } from '../../domain/ledger/verdict-entry.js';
import { scopeSecretValues } from '../security/secret-scope.js';
import { asJsonObject } from '../../domain/json-object.js';
import { shellWord } from '../../domain/shell-word.js';
import { describeTarget } from '../../domain/actions/write-scope.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { RevertChange } from '../ledger/revert-change.js';
import { refKey, uniqueRefs } from './await-rollouts.js';
import { currentRun, outsideRun, reportProgress } from '../runs/run-scope.js';
import { requireDependencies } from '../required-deps.js';
import type { ExecutionVerifier, FollowUpRuns, VerifyInput } from './execution-verifier.js';

export type { ExecutionVerifier, FollowUpRuns, VerifyInput } from './execution-verifier.js';

/** Where a later verdict's ledger entries are appended (ChangeRecorder.recordVerdict). */
export interface VerdictRecorder {
  recordVerdict(record: ChangeRecord): Promise<ChangeEntry>;
}

export type OnFailure = 'revert' | 'report';
export const ON_FAILURE_VALUES = ['revert', 'report'] as const;

export interface VerifySettings {
  /** SVC_VERIFY_WINDOW_MS: how long the changed objects are watched after the write (the run's deadline lowers it); 0: one look. */
  windowMs: number;
  /** How often they are read within the window; default min(1000, window / 5), at least 10. */
  intervalMs?: number;
  /** SVC_ON_FAILURE_DEFAULT: onFailure when the call sends none; unset: `report` for manual execution, `revert` for automatic. */
  onFailureDefault?: OnFailure;
  /** SVC_VERIFY_STABLE_MS: every changed object healthy (rolled out, ready) for this long ends the window early, healthy; default 5000. */
  stableMs?: number;
  /**
   * SVC_VERIFY_ANSWER_MS: how long a call waits for the verdict (and, before it, for the rollouts); past it the
   * answer carries the verdict so far and the window goes on as a follow-up run; default 10000. A run of its
   * own (`Prefer: respond-async`) waits the whole window.
   */
  answerMs?: number;
}

export const DEFAULT_STABLE_MS = 5000;
export const DEFAULT_ANSWER_MS = 10000;

/** How long this call may wait for rollouts and the verdict before answering: the answer cap, or no cap in a run of its own. */
export function answerWithinMs(settings: VerifySettings | undefined): number {
  return currentRun()?.respondAsync ? Number.POSITIVE_INFINITY : (settings?.answerMs ?? DEFAULT_ANSWER_MS);
}

/** A verdict given before the window ended: how to follow it to its end. */
export interface VerifyFollowUp {
  /** The follow-up run (`GET /api/v1/runs/{runId}`); absent when runs are not available here. */
  runId?: string;
  /** Its progress events (`verify` steps, then `done` with the final verdict as the run's result). */
  events?: string;
  /** The ledger entries of the writes being watched (a revert of a degraded one names them in `revertOf`). */
  ledgerIds: string[];
  /** The session that records the final verdict, when the tool has one. */
  note: string;
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
  /** Every changed object was healthy for SVC_VERIFY_STABLE_MS: the window ended early. */
  stable?: true;
  /** The verdict so far: the answer could not wait for the window's end (SVC_VERIFY_ANSWER_MS); it goes on in `followUp`. */
  pending?: true;
  followUp?: VerifyFollowUp;
  /** ISO 8601: when a verdict that came after the answer was reached. */
  decidedAt?: string;
  /** A verdict that came after the answer: its `verdict` entries in the change ledger (one per recorded write, each naming it in `verdictOf`). */
  verdictIds?: string[];
  summary: string;
}

/** Where the watch reports, and what stops it: the call's until the answer, the follow-up run's after. */
interface WatchIo {
  report: (data: Record<string, unknown>) => void;
  aborted: () => boolean;
}

/** What the watch saw: the last judgement of each object, and how long and how often it looked. */
interface Watched {
  targets: number;
  judged: WorkloadJudgement[];
  windowMs: number;
  started: number;
  observations: number;
  stable?: true;
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
  private readonly stableMs: number;

  constructor(
    private readonly reader: ClusterReader,
    private readonly clock: Clock & Timers,
    readonly settings: VerifySettings,
    private readonly revert: RevertChange,
    private readonly ledger: ChangeLedger,
    /** Where the rest of a window goes once the call answered; without it the rest is watched untracked. */
    private readonly followUps?: FollowUpRuns,
    /** Appends a later verdict's entries scrubbed as every record (ChangeRecorder); without it, straight to the ledger, scrubbed of what the run read. */
    private readonly verdicts?: VerdictRecorder,
  ) {
    requireDependencies('VerifyExecution', { reader, clock, settings, revert, ledger }, ['reader', 'clock', 'settings', 'revert', 'ledger']);
    this.intervalMs = settings.intervalMs ?? Math.max(10, Math.min(1000, Math.floor(settings.windowMs / 5)));
    this.stableMs = settings.stableMs ?? DEFAULT_STABLE_MS;
  }

  async snapshot(targets: readonly ResourceRef[]): Promise<VerifySnapshot> {
    const seen = new Map<string, WorkloadObservation>();
    for (const t of targets) if (!seen.has(refKey(t))) seen.set(refKey(t), await this.observe(t));
    reportProgress('verify', { step: 'snapshot', objects: seen.size });
    return seen;
  }

  async verify(input: VerifyInput): Promise<ExecutionVerification> {
    const started = this.clock.now();
    const run = currentRun();
    // until the answer: the call's progress and cancel; after it, the follow-up run's
    const io: WatchIo = { report: (data) => reportProgress('verify', data), aborted: () => run?.signal.aborted === true };
    let due: (w: Watched) => void = () => undefined;
    const answerDue = new Promise<Watched>((resolve) => (due = resolve));
    const watching = this.watch(input, started, started + answerWithinMs(this.settings), io, (w) => due(w));
    const first = await Promise.race([watching.then((w) => ({ ended: true, w })), answerDue.then((w) => ({ ended: false, w }))]);
    if (first.ended) return this.conclude(input, first.w, io);
    return this.handOff(input, first.w, watching, io);
  }

  /** The answer before the window ended: the verdict so far and where the rest goes (a follow-up run, then the session). */
  private async handOff(input: VerifyInput, soFar: Watched, watching: Promise<Watched>, io: WatchIo): Promise<ExecutionVerification> {
    let followRunId: string | undefined;
    const finish = async (): Promise<ExecutionVerification> => {
      const concluded = { ...(await this.conclude(input, await watching, io)), decidedAt: new Date(this.clock.now()).toISOString() };
      // on the ledger first, each change's verdict entry naming it; then on the session, naming those entries
      const verdictIds = await this.recordVerdicts(input.writes, concluded, followRunId);
      const final: ExecutionVerification = verdictIds.length ? { ...concluded, verdictIds } : concluded;
      await input.onLaterVerdict?.(final);
      return final;
    };
    const caller = input.caller;
    const runId =
      this.followUps && caller
        ? await this.followUps
            .start({ tool: input.tool ?? 'verify', caller }, (scope) => {
              io.report = (data) => scope.progress('verify', data);
              io.aborted = () => scope.signal.aborted;
              followRunId = scope.runId;
              return finish();
            })
            .catch(() => undefined)
        : undefined;
    followRunId ??= runId;
    if (!runId) {
      // no run to follow it in: the window still ends, and the verdict still reaches the session
      io.report = () => undefined;
      io.aborted = () => false;
      void outsideRun(finish).catch(() => undefined);
    }
    const ledgerIds = input.writes.flatMap((w) => (w.ledgerId ? [w.ledgerId] : []));
    const verdict = overallHealth(soFar.judged);
    const followUp: VerifyFollowUp = {
      ...(runId ? { runId, events: `/api/v1/runs/${runId}/events` } : {}),
      ledgerIds,
      note: `The settle window goes on for up to ${Math.round(soFar.windowMs / 1000)} s after the write${
        runId ? `: follow run ${runId} (svc runs watch ${runId})` : ''
      }; the final verdict is recorded on the session and in the change ledger (a verdict entry on each change)${input.onFailure === 'revert' ? ', and a degraded change is reverted' : ', and a degraded change is reported with the calls that revert it'}${
        ledgerIds.length ? ` (GET /api/v1/changes/{id} shows laterVerdict and revertedBy for ${ledgerIds.join(', ')})` : ''
      }.`,
    };
    const base = this.base(input, soFar);
    return {
      ...base,
      pending: true,
      followUp,
      summary: `Verdict so far: ${verdict}${base.evidence.length ? ` (${base.evidence.slice(0, 3).join('; ')})` : ''}; still watching. ${followUp.note}`,
    };
  }

  /**
   * A later verdict on the change ledger: one `verdict` entry per recorded
   * write of the execution (a deleted object's too: the execution's verdict
   * covers it), naming the change in `verdictOf`, with that object's verdict,
   * the execution's, and the revert (or why none) of a degraded one. A write
   * the ledger did not record has no entry to judge. A ledger that fails
   * (DomainError) costs only that entry: the verdict still reaches the
   * session and the follow-up run's result, whose `verdictIds` name the
   * entries that were recorded.
   */
  private async recordVerdicts(writes: readonly ExecutedWrite[], v: ExecutionVerification, runId: string | undefined): Promise<string[]> {
    const ids: string[] = [];
    for (const w of writes) {
      if (!w.ledgerId) continue;
      try {
        const judged = await this.ledger.get(w.ledgerId);
        if (!judged) continue;
        const own = v.objects.find((o) => refKey(o.target) === refKey(w.target));
        const reverted = v.reverted?.find((r) => r.ledgerId === w.ledgerId);
        const unreverted = v.notReverted?.find((r) => r.ledgerId === w.ledgerId);
        const notReverted =
          v.verdict !== 'degraded' || reverted
            ? undefined
            : (unreverted?.reason ?? (v.onFailure === 'report' ? `left in place (onFailure report): svc changes revert ${w.ledgerId}` : undefined));
        const record = verdictRecord(judged, {
          health: own?.health ?? 'unknown',
          execution: v.verdict,
          evidence: own ? own.evidence.map((e) => `${describeTarget(own.target)}: ${e}`) : v.evidence,
          onFailure: v.onFailure,
          ...(reverted ? { revertId: reverted.revertId } : {}),
          ...(notReverted !== undefined ? { notReverted } : {}),
          ...(v.stable ? { stable: true as const } : {}),
          decidedAt: v.decidedAt ?? new Date(this.clock.now()).toISOString(),
          windowMs: v.windowMs,
          observedMs: v.observedMs,
          ...(runId ? { runId } : {}),
        });
        const entry = this.verdicts ? await this.verdicts.recordVerdict(record) : await this.ledger.append(scrubRecord(record, scopeSecretValues()));
        ids.push(entry.id);
      } catch (e) {
        if (!(e instanceof DomainError)) throw e;
        // the ledger failed: the verdict still goes to the session and the run
      }
    }
    return ids;
  }

  /**
   * Reads the changed objects until the window ends, one is degraded (final),
   * every one was healthy for stableMs, or there is nothing to judge. Calls
   * `onDue` once with what it saw so far when the answer may wait no longer.
   */
  private async watch(input: VerifyInput, started: number, answerBy: number, io: WatchIo, onDue: (w: Watched) => void): Promise<Watched> {
    const deleted = new Set(input.writes.filter((w) => w.deleted).map((w) => refKey(w.target)));
    const targets = uniqueRefs(input.writes.map((w) => w.target)).filter((t) => !deleted.has(refKey(t)));
    const windowMs = Math.max(0, Math.min(this.settings.windowMs, input.deadlineMs));
    const end = started + windowMs;
    // a clock that does not move (or moves oddly) still ends the window: at most one look per interval, and one more
    const maxObservations = Math.ceil(windowMs / this.intervalMs) + 2;
    let judged: WorkloadJudgement[];
    let observations = 0;
    let last: Health | undefined;
    let healthySince: number | undefined;
    let answered = false;
    for (;;) {
      const windowOver = this.clock.now() >= end || observations + 1 >= maxObservations || io.aborted();
      judged = [];
      for (const t of targets) {
        const after = await this.observe(t);
        if (!judgeable(t.kind, after.object ?? input.snapshot.get(refKey(t))?.object ?? null) && after.error === undefined) continue;
        judged.push(judgeWorkload(t, input.snapshot.get(refKey(t)), after, windowOver));
      }
      observations += 1;
      const now = overallHealth(judged);
      const at = this.clock.now();
      if (now !== last) io.report({ step: 'observed', verdict: now, afterMs: at - started });
      last = now;
      healthySince = now === 'healthy' ? (healthySince ?? at) : undefined;
      const stable = healthySince !== undefined && at - healthySince >= this.stableMs;
      const seen = { targets: targets.length, judged, windowMs, started, observations };
      if (windowOver || judged.length === 0 || stable || judged.some((j) => j.final && j.health === 'degraded'))
        return { ...seen, ...(stable && !windowOver ? { stable: true as const } : {}) };
      if (!answered && at >= answerBy) {
        answered = true;
        onDue(seen);
      }
      const untilStable = healthySince !== undefined ? healthySince + this.stableMs - at : Number.POSITIVE_INFINITY;
      await this.sleep(Math.min(this.intervalMs, Math.max(0, end - at), Math.max(0, untilStable)));
    }
  }

  private base(input: VerifyInput, w: Watched) {
    const verdict = overallHealth(w.judged);
    const objects = w.judged.map(({ target, health, evidence }) => ({ target, health, evidence }));
    const evidence = w.judged
      .filter((j) => j.health === verdict || verdict === 'healthy')
      .flatMap((j) => j.evidence.map((e) => `${describeTarget(j.target)}: ${e}`));
    return {
      verdict,
      evidence,
      objects,
      windowMs: w.windowMs,
      observedMs: this.clock.now() - w.started,
      observations: w.observations,
      onFailure: input.onFailure,
      ...(w.stable ? { stable: true as const } : {}),
    };
  }

  /** The verdict once the watch ended; on degraded, the revert or the report onFailure asks for. */
  private async conclude(input: VerifyInput, w: Watched, io: WatchIo): Promise<ExecutionVerification> {
    const base = this.base(input, w);
    const { verdict, evidence } = base;
    io.report({ step: 'verdict', verdict, evidence: evidence.slice(0, 3), ...(w.stable ? { stable: true } : {}) });
    if (verdict !== 'degraded') return { ...base, summary: summaryOf(verdict, evidence, w.targets, w.stable === true) };
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
    const { reverted, notReverted } = await this.revertAll(recorded, input.caller, io);
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
    io: WatchIo,
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
        io.report({ step: 'reverted', ledgerId: w.ledgerId, revertId: done.revert.id });
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
        io.report({ step: 'revert-failed', ledgerId: w.ledgerId, reason: e.message.slice(0, 300) });
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

function summaryOf(verdict: Health, evidence: string[], judged: number, stable: boolean): string {
  if (verdict === 'healthy')
    return `Verified: every changed object is healthy (${evidence.slice(0, 3).join('; ')})${stable ? ', and stayed so for SVC_VERIFY_STABLE_MS' : ''}.`;
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
    ...(v.pending ? ['pending: the verdict so far; svc goes on watching after this answer (a degraded change is then reverted or reported)'] : []),
  ].join('\n');
}

/** A degraded verdict as the next step: what was reverted (or the calls that revert), and what could not be. */
export function healthStep(health: ExecutionVerification, where: string): string {
  const calls = health.revertCalls?.length ? ` REST: ${health.revertCalls.map((c) => `${c.method} ${c.path} ${JSON.stringify(c.body)}`).join(', then ')}.` : '';
  return `${health.summary}${calls} See ${where} for the evidence.`;
}
