import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { Logger } from '../../domain/ports/logger.js';
import { RepeatingPass } from './repeating-pass.js';

const DAY_MS = 86_400_000;
/** Pruning runs at start and then this often: retention is counted in days, an hour late is nothing. */
export const RETENTION_INTERVAL_MS = 3_600_000;

/**
 * Removes ledger entries older than the retention (SVC_LEDGER_RETENTION_DAYS)
 * now and every hour. Never throws: a failed prune is logged and tried again
 * at the next run. `stop` cancels the next run and waits for one in flight.
 */
export class LedgerRetention {
  private readonly loop: RepeatingPass;

  constructor(
    private readonly ledger: ChangeLedger,
    private readonly retentionDays: number,
    private readonly clock: Clock & Timers,
    private readonly logger: Logger,
  ) {
    this.loop = new RepeatingPass(clock, async () => {
      await this.pruneNow();
      return RETENTION_INTERVAL_MS;
    });
  }

  start(): void {
    this.loop.start();
  }

  /** One prune now; resolves with how many entries went (0 after a failure). */
  async pruneNow(): Promise<number> {
    try {
      const removed = await this.ledger.prune(this.clock.now() - this.retentionDays * DAY_MS);
      if (removed > 0) this.logger.info('ledger entries past retention removed', { removed, retentionDays: this.retentionDays });
      return removed;
    } catch (e) {
      this.logger.warn('ledger retention could not prune; it tries again in an hour', { error: (e as Error).message });
      return 0;
    }
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
