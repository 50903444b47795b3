import type { Clock } from '../../domain/ports/clock.js';
import type { RateLimiter, RateVerdict } from '../../domain/ports/rate-limiter.js';

/** Most keys counted at once; past that the oldest windows are dropped (a flood of addresses cannot grow memory). */
const MAX_KEYS = 100_000;

/** Fixed-window counters in this process, bounded in keys. Synchronous. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly clock: Clock = { now: () => Date.now() }) {}

  hit(key: string, limit: number, windowMs: number): RateVerdict {
    const now = this.clock.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= windowMs) {
      if (w) this.windows.delete(key);
      w = { start: now, count: 0 };
      if (this.windows.size >= MAX_KEYS) this.evict(now, windowMs);
      this.windows.set(key, w);
    }
    w.count += 1;
    const resetMs = w.start + windowMs - now;
    return { allowed: w.count <= limit, remaining: Math.max(0, limit - w.count), resetMs };
  }

  get size(): number {
    return this.windows.size;
  }

  /** Expired windows first; if none, the oldest tenth (insertion order). */
  private evict(now: number, windowMs: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= windowMs) this.windows.delete(k);
    if (this.windows.size < MAX_KEYS) return;
    let n = Math.ceil(MAX_KEYS / 10);
    for (const k of this.windows.keys()) {
      if (n-- <= 0) break;
      this.windows.delete(k);
    }
  }
}
