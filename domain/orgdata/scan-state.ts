import type { ScanTarget } from './capability.js';

export interface ScanFailure {
  /** The capability id, or the name the caller gave when the cluster does not serve it. */
  resource: string;
  reason: string;
}

/**
 * A capability scan as it is persisted after every kind, so a restarted svc
 * resumes it: the kinds still to do are `pending` (those in flight included,
 * until they finish), the finished ones are `completed` or in `failures`.
 */
export interface ScanState {
  /** `scan_` + 32 hex digits. */
  id: string;
  /** `cancelled`: its run was cancelled (it is never resumed); the kinds not done stay in `pending`. */
  status: 'running' | 'completed' | 'cancelled';
  /** The caller's list, or 'all'. */
  requested: string[] | 'all';
  total: number;
  pending: ScanTarget[];
  /** Ids of kinds analysed and stored. */
  completed: string[];
  failures: ScanFailure[];
  /** Ids of the kinds being analysed right now. */
  inFlight: string[];
  /** ISO 8601 */
  startedAt: string;
  updatedAt: string;
  finishedAt?: string;
  /** How often the scan was resumed after an interruption. */
  resumed: number;
}

/** What `progress` answers. */
export interface ScanProgress {
  scanId: string;
  status: 'running' | 'completed' | 'cancelled';
  /** Kinds finished, failed ones included. */
  done: number;
  total: number;
  succeeded: number;
  /** The first kind being analysed now; absent when none is. */
  current?: string;
  inFlight: string[];
  failures: ScanFailure[];
  startedAt: string;
  updatedAt: string;
  finishedAt?: string;
  resumed: number;
}

export const SCAN_ID = /^scan_[0-9a-f]{32}$/;

export function newScanState(id: string, requested: string[] | 'all', targets: ScanTarget[], unknown: ScanFailure[], now: string): ScanState {
  return {
    id,
    status: 'running',
    requested,
    total: targets.length + unknown.length,
    pending: targets,
    completed: [],
    failures: unknown,
    inFlight: [],
    startedAt: now,
    updatedAt: now,
    resumed: 0,
  };
}

/** Records one finished kind (a failure when `reason` is given); completes the scan when nothing is pending. */
export function finishKind(state: ScanState, id: string, now: string, reason?: string): void {
  state.pending = state.pending.filter((t) => t.id !== id);
  state.inFlight = state.inFlight.filter((x) => x !== id);
  if (reason === undefined) state.completed.push(id);
  else state.failures.push({ resource: id, reason });
  state.updatedAt = now;
  if (state.pending.length === 0) {
    state.status = 'completed';
    state.finishedAt = now;
  }
}

/** Ends a running scan as cancelled: nothing is in flight any more, what was not done stays pending. */
export function cancelScan(state: ScanState, now: string): void {
  state.status = 'cancelled';
  state.inFlight = [];
  state.updatedAt = now;
  state.finishedAt = now;
}

export function toProgress(s: ScanState): ScanProgress {
  return {
    scanId: s.id,
    status: s.status,
    done: s.completed.length + s.failures.length,
    total: s.total,
    succeeded: s.completed.length,
    ...(s.inFlight.length ? { current: s.inFlight[0] } : {}),
    inFlight: [...s.inFlight],
    failures: s.failures.map((f) => ({ ...f })),
    startedAt: s.startedAt,
    updatedAt: s.updatedAt,
    ...(s.finishedAt ? { finishedAt: s.finishedAt } : {}),
    resumed: s.resumed,
  };
}
