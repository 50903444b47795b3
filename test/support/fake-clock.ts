import type { Clock, Timers } from '../../domain/ports/clock.js';

/** A clock that moves only when told to; `advance` fires the timers that fall due, in order. */
export class FakeClock implements Clock, Timers {
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  constructor(private ms = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.ms;
  }

  schedule(ms: number, fn: () => void): () => void {
    const timer = { at: this.ms + ms, seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Timers not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  advance(ms: number): void {
    const target = this.ms + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.ms = due.at;
      due.fn();
    }
    this.ms = target;
  }
}
