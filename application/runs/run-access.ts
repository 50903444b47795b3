import { hasRole, type Caller } from '../../domain/auth/caller.js';
import { ERROR_CODES, NotFoundError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { RunStore } from '../../domain/ports/run-store.js';
import { callerKey, isRunId, type RunCaller, type RunRecord } from '../../domain/runs/run.js';
import { settleInterrupted } from './finish-run.js';

export const runCallerOf = (c: Caller): RunCaller => ({ id: c.id, username: c.username, kind: c.kind });

/** A caller sees their own runs; an admin sees everyone's. */
export function maySeeRun(caller: Caller, run: Pick<RunRecord, 'caller'>): boolean {
  return hasRole(caller, 'admin') || callerKey(run.caller) === callerKey(runCallerOf(caller));
}

/**
 * The run, as the caller may see it, its lapsed lease settled. Unknown,
 * expired and someone else's runs are the same 404, so ids of others' runs
 * cannot be probed.
 */
export async function loadRun(store: RunStore, clock: Clock, runId: string, caller: Caller): Promise<RunRecord> {
  const record = isRunId(runId) ? await store.get(runId) : undefined;
  if (!record || !maySeeRun(caller, record)) {
    throw new NotFoundError(ERROR_CODES.NOT_FOUND, `No run ${isRunId(runId) ? runId : '(malformed id)'}: it is unknown, expired or not yours`);
  }
  return settleInterrupted(store, clock, record);
}
