import type { Caller } from '../../domain/auth/caller.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { RunStore } from '../../domain/ports/run-store.js';
import type { RunRecord, RunView } from '../../domain/runs/run.js';
import { loadRun } from './run-access.js';

/** What a caller is shown of a run: never the replica that runs it or its lease. */
export function runView(record: RunRecord, progress: RunView['progress']): RunView {
  const { owner: _owner, leaseUntil: _lease, cancelRequested: _cancel, ...shown } = record;
  return { ...shown, progress };
}

/** One run with its progress so far (the caller's own; an admin's: any). */
export class GetRun {
  constructor(
    private readonly store: RunStore,
    private readonly clock: Clock,
  ) {}

  async execute(runId: string, caller: Caller): Promise<RunView> {
    const record = await loadRun(this.store, this.clock, runId, caller);
    return runView(record, await this.store.events(runId, 0));
  }
}
