import { AsyncLocalStorage } from 'node:async_hooks';
import { CancelledError } from '../../domain/errors.js';
import type { RunEventType } from '../../domain/runs/run.js';

/** Where a run's progress goes: one call per event (`done` is the runner's own). */
export type ProgressSink = (type: Exclude<RunEventType, 'done'>, data: Record<string, unknown>) => void;

/** What the shared AI parts need to know about the run they are part of. */
export interface RunScope {
  /** The run's id (`run_...`), when the work is a run of its own: recorded on the ledger intents of its writes. */
  runId?: string;
  /** Aborts when the run is cancelled. */
  signal: AbortSignal;
  progress: ProgressSink;
  /**
   * A run of its own (`Prefer: respond-async`), not an MCP call followed
   * live: the run lasts until the tool's work is done, including work the
   * tool would otherwise leave in the background (the capability scan).
   */
  respondAsync?: boolean;
}

/*
 * The scope travels with the async work of one tool run (AsyncLocalStorage),
 * so the shared parts (RunBudget, the tool loop, the model and cluster ports
 * seen through runAwarePorts) report progress and honour a cancel without
 * every use case passing its ToolContext down to them. Outside a run (a
 * synchronous call) there is no scope and these are no-ops.
 */
const storage = new AsyncLocalStorage<RunScope>();

export function withinRun<T>(scope: RunScope, work: () => Promise<T>): Promise<T> {
  return storage.run(scope, work);
}

/** Runs `work` outside any run: background work a call leaves behind must not be cancelled or reported with that call. */
export function outsideRun<T>(work: () => T): T {
  return storage.exit(work);
}

export function currentRun(): RunScope | undefined {
  return storage.getStore();
}

/** Reports one progress event of the current run, if any. A sink never throws into the tool. */
export function reportProgress(type: Exclude<RunEventType, 'done'>, data: Record<string, unknown> = {}): void {
  const scope = storage.getStore();
  if (!scope) return;
  try {
    scope.progress(type, data);
  } catch {
    // progress is best effort: a full or gone store must not fail the tool
  }
}

/** Throws CancelledError when the current run was cancelled: called before anything that starts work. */
export function throwIfCancelled(): void {
  if (storage.getStore()?.signal.aborted) throw new CancelledError();
}

/** `signal` joined with the current run's cancel signal (just `signal` outside a run). */
export function withRunSignal(signal: AbortSignal): AbortSignal;
export function withRunSignal(signal: AbortSignal | undefined): AbortSignal | undefined;
export function withRunSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
  const run = storage.getStore()?.signal;
  if (!run) return signal;
  return signal ? AbortSignal.any([signal, run]) : run;
}
