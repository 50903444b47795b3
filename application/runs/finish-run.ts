import { ERROR_CODES } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { RunChange, RunStore } from '../../domain/ports/run-store.js';
import { INTERRUPTED_MESSAGE, isFinished, type RunRecord, type RunStatus } from '../../domain/runs/run.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Ends a run: the transition to its final status (only from `from`, so of a
 * finish and a cancel exactly one wins), then its `done` event, appended by
 * the winner only, so a stream ends exactly once. Undefined when it lost.
 */
export async function finishRun(
  store: RunStore,
  clock: Clock,
  runId: string,
  from: readonly RunStatus[],
  change: Omit<RunChange, 'finishedAt'>,
): Promise<RunRecord | undefined> {
  const done = await store.transition(runId, from, { ...change, finishedAt: iso(clock.now()) });
  if (done) await store.append(runId, { type: 'done', at: done.finishedAt!, data: { status: done.status, ...(done.error ? { error: done.error } : {}) } });
  return done;
}

/**
 * A run still queued or running whose lease has lapsed belongs to a replica
 * that stopped: it becomes failed, "interrupted: the replica running it
 * stopped", on the first read that notices, so it is never running forever.
 */
export async function settleInterrupted(store: RunStore, clock: Clock, record: RunRecord): Promise<RunRecord> {
  if (isFinished(record.status) || record.leaseUntil === undefined || record.leaseUntil >= clock.now()) return record;
  const settled = await finishRun(store, clock, record.runId, [record.status], {
    status: 'failed',
    error: { code: ERROR_CODES.INTERRUPTED, message: INTERRUPTED_MESSAGE },
  });
  return settled ?? (await store.get(record.runId)) ?? record;
}

export { iso };
