import type { RunEvent, RunRecord, RunStatus } from '../runs/run.js';

export interface RunQuery {
  /** Only runs of this caller key (the identity id, `callerKey`); absent: everyone's (an admin asking). */
  callerKey?: string;
  tool?: string;
  /** Only runs in this cluster (SVC_CLUSTERS). */
  cluster?: string;
  status?: RunStatus;
  /** 1..100 */
  limit: number;
  /** Opaque, from the previous page's `nextCursor`. */
  cursor?: string;
}

export interface RunPage {
  runs: RunRecord[];
  /** Absent on the last page. */
  nextCursor?: string;
}

export type CreateResult = { created: true } | { created: false; active: number };

/** What a subscriber hears about one run, from whichever replica it happened on. */
export type RunSignal = { type: 'event'; event: RunEvent } | { type: 'cancel' };

/** The fields a transition may set (status is the transition's target). */
export type RunChange = Partial<Pick<RunRecord, 'startedAt' | 'finishedAt' | 'result' | 'error' | 'owner' | 'leaseUntil'>> & { status: RunStatus };

/**
 * Where runs live: one process (memory and files under SVC_DATA_DIR) or every
 * replica (Redis).
 *
 * Contract (test/contract/run-store-contract.ts holds every adapter to it):
 * - `create` stores a new record as given. With `maxActive`, only when the
 *   run's caller has fewer active runs than that (counted as `countActive`
 *   counts), the check and the create one atomic step for every replica (of
 *   two starts racing for the last slot exactly one is stored); otherwise it
 *   stores nothing and answers the count it saw. `get` answers a deep copy, or
 *   undefined for an unknown, malformed or expired id (never throws for those).
 *   A record expires `ttlMs` (the store's) after its last transition.
 * - `transition` changes the record only when its status is one of `from`,
 *   atomically (of two transitions from the same status exactly one wins), and
 *   answers the record as stored; undefined when it lost or the run is gone.
 * - `append` gives the event the next id (1, 2, ...) and delivers it to every
 *   subscriber of the run, on every replica; at most MAX_RUN_EVENTS are kept,
 *   except that `done` is always kept. Undefined when the run is gone or full.
 * - `events(id, afterId)` answers the kept events with an id above `afterId`, in order.
 * - `subscribe` delivers events appended and cancels asked for after it
 *   resolves, until the returned function is called.
 * - `requestCancel` sets `cancelRequested` and delivers a `cancel` signal.
 * - `list` answers newest first, filtered, `limit` at a time.
 * - `countActive(callerKey)` counts the caller's queued and running runs.
 * - `renewLease` sets `leaseUntil` of the runs given that `owner` still runs.
 * - A failure of the store itself is DependencyError('runs', ...) or ('redis', ...).
 */
export interface RunStore {
  create(run: RunRecord, maxActive?: number): Promise<CreateResult>;
  get(runId: string): Promise<RunRecord | undefined>;
  transition(runId: string, from: readonly RunStatus[], change: RunChange): Promise<RunRecord | undefined>;
  append(runId: string, event: Omit<RunEvent, 'id'>): Promise<RunEvent | undefined>;
  events(runId: string, afterId: number): Promise<RunEvent[]>;
  subscribe(runId: string, listener: (signal: RunSignal) => void): Promise<() => void>;
  requestCancel(runId: string): Promise<void>;
  list(query: RunQuery): Promise<RunPage>;
  countActive(callerKey: string): Promise<number>;
  renewLease(runIds: readonly string[], owner: string, leaseUntil: number): Promise<void>;
  /** Stops timers and subscriptions (shutdown). */
  close(): Promise<void>;
}
