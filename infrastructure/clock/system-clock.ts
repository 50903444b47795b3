import type { Clock, Timers } from '../../domain/ports/clock.js';

/** Wall-clock time and real timers. Timers are unref'd: a pending timeout never keeps the process alive. */
export class SystemClock implements Clock, Timers {
  now(): number {
    return Date.now();
  }

  schedule(ms: number, fn: () => void): () => void {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  }
}
