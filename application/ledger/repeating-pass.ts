import type { Timers } from '../../domain/ports/clock.js';

/**
 * The background loop of the ledger's upkeep (retention, intent recovery):
 * runs `pass` now, then again after the delay the pass answers, until
 * stopped. A pass never throws (each logs its own failure and tries again at
 * the next run); `stop` cancels the next pass and waits for one in flight.
 */
export class RepeatingPass {
  private cancel: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly timers: Timers,
    /** One pass; resolves with the milliseconds until the next. */
    private readonly pass: () => Promise<number>,
  ) {}

  start(): void {
    this.stopped = false;
    this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    await this.running;
  }

  private run(): void {
    this.running = this.pass().then((delayMs) => {
      this.running = undefined;
      if (!this.stopped) this.cancel = this.timers.schedule(delayMs, () => this.run());
    });
  }
}
