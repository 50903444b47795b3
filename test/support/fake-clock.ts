import type { Clock } from '../../domain/ports/clock.js';

/** A clock that moves only when told to. */
export class FakeClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
