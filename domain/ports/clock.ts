/** Time source, so caches and timeouts are testable with a fake clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Timers, so timeouts are testable without real waiting. */
export interface Timers {
  /** Calls `fn` once after `ms` milliseconds; the returned function cancels it (safe to call twice). */
  schedule(ms: number, fn: () => void): () => void;
}
