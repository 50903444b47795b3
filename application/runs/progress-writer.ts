import type { Clock } from '../../domain/ports/clock.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { RunStore } from '../../domain/ports/run-store.js';
import type { ProgressSink } from './run-scope.js';

/**
 * A run's progress sink: events are appended one after another (so their ids
 * follow the order they happened in) and never fail the tool; after `close`
 * nothing more is appended, so `done` is always the last event.
 */
export class ProgressWriter {
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  readonly sink: ProgressSink = (type, data) => {
    if (this.closed) return;
    const at = new Date(this.clock.now()).toISOString();
    this.chain = this.chain
      .then(() => this.store.append(this.runId, { type, at, data }))
      .catch((e) => this.logger.warn('run progress not recorded', { runId: this.runId, error: (e as Error).message }));
  };

  /** Waits for the events already reported, then takes no more. */
  async close(): Promise<void> {
    this.closed = true;
    await this.chain;
  }
}
