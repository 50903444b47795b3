import type { Caller } from '../../domain/auth/caller.js';
import { DomainError, ERROR_CODES } from '../../domain/errors.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { Logger } from '../../domain/ports/logger.js';
import { NO_METRICS, type Metrics } from '../../domain/ports/metrics.js';
import type { RunStore } from '../../domain/ports/run-store.js';
import { doneSoFar, INTERRUPTED_MESSAGE, type RunError } from '../../domain/runs/run.js';
import type { ExecuteTool } from '../execute-tool.js';
import { newRunId } from '../../domain/runs/run.js';
import type { FollowUpRuns } from '../actions/execution-verifier.js';
import { finishRun, iso } from './finish-run.js';
import { ProgressWriter } from './progress-writer.js';
import { runCallerOf } from './run-access.js';
import { withinRun, type RunScope } from './run-scope.js';

export interface RunLimits {
  /** SVC_RUNS_MAX_ACTIVE: runs running at once on this replica; the rest wait, queued, in order. */
  maxActive: number;
  /** SVC_RUNS_MAX_PER_CALLER: queued and running runs per caller, over every replica. */
  maxPerCaller: number;
  /** How long a replica's claim on its runs holds without renewal (renewed every third of it). */
  leaseMs: number;
  /** After a cancel, how long the run's work may take to wind down before the run is ended anyway. */
  cancelGraceMs: number;
}

/** A run this replica accepted, with what it needs to start it. */
export interface RunJob {
  runId: string;
  tool: string;
  params: unknown;
  requestId: string;
  caller: Caller;
  /** Only in this replica's memory: a run's record never holds a credential. */
  gitToken?: string;
}

type Outcome = { kind: 'ok'; value: unknown } | { kind: 'error'; error: unknown } | { kind: 'cancelled' };

/**
 * Runs the runs this replica accepted: at most `maxActive` at a time, the
 * rest in order; each through ExecuteTool with its cancel signal and progress
 * sink, so the result is what the synchronous call would have answered. It
 * renews the lease of every run it holds, and hears cancels from any replica
 * through the store.
 */
export class RunExecutor implements FollowUpRuns {
  private readonly queue: RunJob[] = [];
  private readonly active = new Map<string, AbortController>();
  /** Follow-up runs (work a call left behind): held here, but not counted against maxActive. */
  private readonly following = new Map<string, AbortController>();
  private stopLeases?: () => void;
  private stopped = false;

  constructor(
    private readonly store: RunStore,
    private readonly executeTool: Pick<ExecuteTool, 'execute'>,
    private readonly clock: Clock & Timers,
    private readonly logger: Logger,
    readonly limits: RunLimits,
    /** This replica's id in run records (random per process). */
    readonly owner: string,
    /** Runs active on this replica, as they start and end. */
    private readonly metrics: Metrics = NO_METRICS,
    /** 32 lowercase hex digits from a CSPRNG: the ids of follow-up runs (without it there are none). */
    private readonly randomHex32?: () => string,
  ) {}

  enqueue(job: RunJob): void {
    this.queue.push(job);
    this.pump();
    this.keepLeases();
  }

  /**
   * Work a call left behind (the rest of a settle window after the answer)
   * as a run of its own for the caller: stored running at once (no per-caller
   * limit: the call was already admitted), its lease kept, its events what the
   * work reports, a cancel aborting its scope's signal, ended with the work's
   * result. Answers the run id, or undefined once this executor stopped.
   */
  async start(what: { tool: string; caller: Caller }, work: (scope: RunScope) => Promise<unknown>): Promise<string | undefined> {
    if (this.stopped || !this.randomHex32) return undefined;
    const now = this.clock.now();
    const runId = newRunId(this.randomHex32());
    const made = await this.store.create({
      runId,
      tool: what.tool,
      caller: runCallerOf(what.caller),
      status: 'running',
      createdAt: iso(now),
      startedAt: iso(now),
      owner: this.owner,
      leaseUntil: now + this.limits.leaseMs,
    });
    if (!made.created) return undefined;
    const controller = new AbortController();
    this.following.set(runId, controller);
    this.keepLeases();
    const progress = new ProgressWriter(this.store, runId, this.clock, this.logger);
    void (async () => {
      const unsubscribe = await this.store.subscribe(runId, (s) => {
        if (s.type === 'cancel') controller.abort();
      });
      try {
        const scope: RunScope = { runId, signal: controller.signal, progress: progress.sink, respondAsync: true };
        const outcome = await withinRun(scope, () => work(scope)).then(
          (value): Outcome => ({ kind: 'ok', value }),
          (error: unknown): Outcome => ({ kind: 'error', error }),
        );
        await progress.close();
        if (outcome.kind === 'ok') await finishRun(this.store, this.clock, runId, ['running'], { status: 'succeeded', result: outcome.value });
        else if (outcome.kind === 'error')
          await finishRun(this.store, this.clock, runId, ['running'], { status: 'failed', error: errorOf(outcome.error, runId) });
      } finally {
        unsubscribe();
        this.following.delete(runId);
      }
    })().catch((e) => this.logger.error('follow-up run failed to finish', { runId, err: e instanceof Error ? e.stack : String(e) }));
    return runId;
  }

  /** A run cancelled while queued here leaves the queue. */
  forget(runId: string): void {
    const i = this.queue.findIndex((j) => j.runId === runId);
    if (i >= 0) this.queue.splice(i, 1);
  }

  /** Shutdown: nothing new starts; runs held here end failed (interrupted) rather than wait for their lease to lapse. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopLeases?.();
    const held = [...this.queue.map((j) => j.runId), ...this.active.keys(), ...this.following.keys()];
    this.queue.length = 0;
    for (const c of [...this.active.values(), ...this.following.values()]) c.abort();
    await Promise.all(
      held.map((id) =>
        finishRun(this.store, this.clock, id, ['queued', 'running'], {
          status: 'failed',
          error: { code: ERROR_CODES.INTERRUPTED, message: INTERRUPTED_MESSAGE },
        }).catch(() => undefined),
      ),
    );
  }

  private pump(): void {
    while (!this.stopped && this.active.size < this.limits.maxActive && this.queue.length > 0) {
      const job = this.queue.shift()!;
      const controller = new AbortController();
      this.active.set(job.runId, controller);
      this.metrics.runsActive(this.active.size);
      void this.run(job, controller)
        .catch((e) => this.logger.error('run failed to finish', { runId: job.runId, err: e instanceof Error ? e.stack : String(e) }))
        .finally(() => {
          this.active.delete(job.runId);
          this.metrics.runsActive(this.active.size);
          this.pump();
        });
    }
  }

  private async run(job: RunJob, controller: AbortController): Promise<void> {
    const unsubscribe = await this.store.subscribe(job.runId, (s) => {
      if (s.type === 'cancel') controller.abort();
    });
    try {
      const now = this.clock.now();
      const started = await this.store.transition(job.runId, ['queued'], {
        status: 'running',
        startedAt: iso(now),
        owner: this.owner,
        leaseUntil: now + this.limits.leaseMs,
      });
      if (!started) return; // cancelled while queued, or expired
      if (started.cancelRequested) controller.abort();
      const progress = new ProgressWriter(this.store, job.runId, this.clock, this.logger);
      const outcome = await this.outcome(job, controller, progress);
      await progress.close();
      if (outcome.kind === 'ok') {
        await finishRun(this.store, this.clock, job.runId, ['running'], { status: 'succeeded', result: outcome.value });
        return;
      }
      const error: RunError =
        outcome.kind === 'cancelled'
          ? { code: ERROR_CODES.CANCELLED, message: `Cancelled; done before the cancel: ${doneSoFar(await this.store.events(job.runId, 0))}` }
          : errorOf(outcome.error, job.requestId);
      await finishRun(this.store, this.clock, job.runId, ['running'], { status: outcome.kind === 'cancelled' ? 'cancelled' : 'failed', error });
    } finally {
      unsubscribe();
    }
  }

  /** The tool's answer; after a cancel, whatever it became within the grace period (a write in flight ends and is recorded), then cancelled. */
  private outcome(job: RunJob, controller: AbortController, progress: ProgressWriter): Promise<Outcome> {
    const work = this.executeTool
      .execute({
        toolName: job.tool,
        params: job.params,
        requestId: job.requestId,
        caller: job.caller,
        gitToken: job.gitToken,
        run: { runId: job.runId, signal: controller.signal, progress: progress.sink, respondAsync: true },
      })
      .then(
        (out): Outcome => ({ kind: 'ok', value: out }),
        (error: unknown): Outcome => ({ kind: 'error', error }),
      );
    return new Promise<Outcome>((resolve) => {
      let cancelTimer: (() => void) | undefined;
      const onAbort = () => (cancelTimer = this.clock.schedule(this.limits.cancelGraceMs, () => resolve({ kind: 'cancelled' })));
      if (controller.signal.aborted) onAbort();
      else controller.signal.addEventListener('abort', onAbort, { once: true });
      void work.then((o) => {
        cancelTimer?.();
        controller.signal.removeEventListener('abort', onAbort);
        resolve(controller.signal.aborted ? { kind: 'cancelled' } : o);
      });
    });
  }

  /** Renews the lease of every run held here every third of the lease, while there are any. */
  private keepLeases(): void {
    if (this.stopLeases || this.stopped) return;
    const tick = () => {
      const ids = [...this.active.keys(), ...this.following.keys(), ...this.queue.map((j) => j.runId)];
      if (ids.length === 0) {
        this.stopLeases = undefined;
        return;
      }
      void this.store
        .renewLease(ids, this.owner, this.clock.now() + this.limits.leaseMs)
        .catch((e) => this.logger.warn('run lease renewal failed', { error: (e as Error).message }));
      this.stopLeases = this.clock.schedule(Math.max(10, Math.floor(this.limits.leaseMs / 3)), tick);
    };
    this.stopLeases = this.clock.schedule(Math.max(10, Math.floor(this.limits.leaseMs / 3)), tick);
  }
}

/** What a failed run shows: a domain error as the synchronous call would have answered it (ExecuteTool already made the unexpected safe). */
function errorOf(e: unknown, requestId: string): RunError {
  if (e instanceof DomainError) return { code: e.code, message: e.message };
  return { code: ERROR_CODES.EXECUTION_ERROR, message: `The run failed unexpectedly; see the server log for request ${requestId}` };
}
