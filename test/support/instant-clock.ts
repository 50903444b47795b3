import type { Clock, Timers } from '../../domain/ports/clock.js';

/**
 * A clock whose timers fire at once (on the next turn of the event loop) and
 * move its time forward by what they waited: a 30-second wait takes
 * milliseconds, and a deadline computed from `now()` still passes.
 */
export class InstantClock implements Clock, Timers {
  private offset = 0;

  constructor(private readonly base: () => number = Date.now) {}

  now(): number {
    return this.base() + this.offset;
  }

  schedule(ms: number, fn: () => void): () => void {
    let cancelled = false;
    setImmediate(() => {
      if (cancelled) return;
      this.offset += ms;
      fn();
    });
    return () => {
      cancelled = true;
    };
  }
}
