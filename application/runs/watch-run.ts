import type { Caller } from '../../domain/auth/caller.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { RunStore } from '../../domain/ports/run-store.js';
import { callerKey, isFinished, type RunEvent } from '../../domain/runs/run.js';
import { settleInterrupted } from './finish-run.js';
import { loadRun, runCallerOf } from './run-access.js';
import { StreamSlots } from './stream-slots.js';

export interface RunWatch {
  /** Resolves after `done` was delivered (or the run is gone or was over before). */
  ended: Promise<void>;
  /** Looks at the run again (a heartbeat calls it): a lapsed lease becomes `failed`, which ends the watch. */
  check(): Promise<void>;
  stop(): void;
}

/**
 * Delivers a run's events in order, each once: those after `afterId` first
 * (replay), then live ones from whichever replica runs it, ending after `done`.
 * The subscription is taken before the replay is read, so nothing falls between.
 */
export class WatchRun {
  constructor(
    private readonly store: RunStore,
    private readonly clock: Clock,
    /** Open watches per caller (SVC_RUN_STREAMS_PER_CALLER): past it, 429 RATE_LIMITED before anything is subscribed. */
    private readonly slots = new StreamSlots(20),
  ) {}

  async execute(runId: string, caller: Caller, afterId: number, deliver: (e: RunEvent) => void): Promise<RunWatch> {
    await loadRun(this.store, this.clock, runId, caller);
    const release = this.slots.take(callerKey(runCallerOf(caller)));
    try {
      return await this.watch(runId, afterId, deliver, release);
    } catch (e) {
      release();
      throw e;
    }
  }

  private async watch(runId: string, afterId: number, deliver: (e: RunEvent) => void, release: () => void): Promise<RunWatch> {
    let last = afterId;
    let replayed = false;
    const early: RunEvent[] = [];
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    void ended.then(release);
    const take = (e: RunEvent) => {
      if (e.id <= last) return;
      last = e.id;
      deliver(e);
      if (e.type === 'done') end();
    };
    const unsubscribe = await this.store.subscribe(runId, (s) => {
      if (s.type !== 'event') return;
      if (replayed) take(s.event);
      else early.push(s.event);
    });
    void ended.then(unsubscribe);
    for (const e of await this.store.events(runId, afterId)) take(e);
    replayed = true;
    for (const e of early.sort((a, b) => a.id - b.id)) take(e);
    let finishedChecks = 0;
    const check = async () => {
      const record = await this.store.get(runId);
      if (!record) return end();
      const settled = await settleInterrupted(this.store, this.clock, record);
      if (!isFinished(settled.status)) return;
      const all = await this.store.events(runId, 0);
      for (const e of all) take(e);
      // `done` is written just after the final status (so it may be on its way), or was at or before Last-Event-ID;
      // one never written (its replica stopped in between) ends the stream a few heartbeats later
      if (all.some((e) => e.type === 'done') || ++finishedChecks >= 3) end();
    };
    await check();
    return { ended, check, stop: () => end() };
  }
}
