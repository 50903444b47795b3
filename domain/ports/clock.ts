/** Time source, so caches and timeouts are testable with a fake clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}
