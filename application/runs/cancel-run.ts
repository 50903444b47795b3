import type { Caller } from '../../domain/auth/caller.js';
import { ConflictError, ERROR_CODES } from '../../domain/errors.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { RunStore } from '../../domain/ports/run-store.js';
import { isFinished, type RunView } from '../../domain/runs/run.js';
import { finishRun } from './finish-run.js';
import { GetRun } from './get-run.js';
import { loadRun } from './run-access.js';
import type { RunExecutor } from './run-executor.js';

/**
 * Cancels a run: a queued one ends at once; a running one is told to stop
 * (on whichever replica runs it) and this waits until it has ended, up to
 * `waitMs`. A finished run is a 409 saying how it ended.
 */
export class CancelRun {
  constructor(
    private readonly store: RunStore,
    private readonly executor: RunExecutor,
    private readonly clock: Clock & Timers,
    private readonly waitMs = 2500,
  ) {}

  async execute(runId: string, caller: Caller): Promise<RunView> {
    const record = await loadRun(this.store, this.clock, runId, caller);
    if (isFinished(record.status)) throw new ConflictError(`Run ${runId} has already ended (${record.status}); only a queued or running run can be cancelled`);
    const queued = await finishRun(this.store, this.clock, runId, ['queued'], {
      status: 'cancelled',
      error: { code: ERROR_CODES.CANCELLED, message: 'Cancelled before it started; nothing was done' },
    });
    if (queued) this.executor.forget(runId);
    else await this.stopRunning(runId);
    const view = await new GetRun(this.store, this.clock).execute(runId, caller);
    if (view.status === 'succeeded' || view.status === 'failed') throw new ConflictError(`Run ${runId} ended (${view.status}) before the cancel reached it`);
    return view;
  }

  private async stopRunning(runId: string): Promise<void> {
    let finished!: () => void;
    const ended = new Promise<void>((resolve) => (finished = resolve));
    const unsubscribe = await this.store.subscribe(runId, (s) => {
      if (s.type === 'event' && s.event.type === 'done') finished();
    });
    const stopTimer = this.clock.schedule(this.waitMs, finished);
    try {
      await this.store.requestCancel(runId);
      const now = await this.store.get(runId);
      if (!now || isFinished(now.status)) finished();
      await ended;
    } finally {
      stopTimer();
      unsubscribe();
    }
  }
}
