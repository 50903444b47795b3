/** The verdict on one request against one caller's budget. */
export interface RateVerdict {
  allowed: boolean;
  /** Requests left in the current window (0 when refused). */
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/**
 * Fixed-window request counters per key (a caller and a budget). `hit` counts
 * one request and says whether it is within `limit` for the window. The
 * in-process counter answers synchronously; a shared one (Redis) asynchronously.
 * Never throws: a shared store that fails falls back to counting in-process.
 */
export interface RateLimiter {
  hit(key: string, limit: number, windowMs: number): RateVerdict | Promise<RateVerdict>;
}
