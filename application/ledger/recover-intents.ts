import { ConflictError, DependencyError, DomainError, NotConfiguredError } from '../../domain/errors.js';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';
import { recoveredRecord, type Observation } from '../../domain/ledger/intent-recovery.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { Logger } from '../../domain/ports/logger.js';
import { withinCluster } from '../cluster/current-cluster.js';
import { actingAsService } from '../cluster/acting-caller.js';
import type { ChangeRecorder } from './change-recorder.js';
import { RepeatingPass } from './repeating-pass.js';

/** Recovery runs at start and then at least this often. */
export const INTENT_RECOVERY_INTERVAL_MS = 60_000;
/** An intent that becomes due sooner is looked at then, but never more often than this. */
const MIN_INTERVAL_MS = 1000;

export interface RecoveryRun {
  /** Outcomes appended by this run. */
  recovered: string[];
  /** Open intents still within the grace period. */
  waiting: number;
  /** Open intents whose outcome could not be appended (tried again at the next run). */
  failed: number;
}

/**
 * Closes the intents whose outcome was never recorded: svc stopped (a crash,
 * kill -9, a lost node) after appending an intent and before the outcome,
 * or the outcome append failed. At start and every minute (sooner when an
 * open intent becomes due), each open intent older than the grace period
 * (SVC_LEDGER_INTENT_GRACE_SECONDS: longer than any write takes, so a write
 * another replica still has in flight is left alone) has its object read,
 * with svc's own identity, and an outcome entry appended that says what was
 * observed (recoveredRecord: applied, failed or unknown). With several
 * replicas each may find the same intent: the ledger closes an intent once,
 * and the replica that comes second skips it. Never throws; `stop` cancels
 * the next run and waits for one in flight.
 */
export class RecoverIntents {
  private readonly loop: RepeatingPass;

  constructor(
    private readonly ledger: ChangeLedger,
    private readonly reader: ClusterReader,
    private readonly recorder: ChangeRecorder,
    private readonly clock: Clock & Timers,
    private readonly logger: Logger,
    private readonly graceMs: number,
  ) {
    // the next run at the interval, or sooner when an open intent becomes due (never sooner than MIN_INTERVAL_MS)
    this.loop = new RepeatingPass(clock, async () => {
      const { nextDueMs } = await this.recoverNow();
      const soonest = nextDueMs === undefined ? INTENT_RECOVERY_INTERVAL_MS : nextDueMs - this.clock.now();
      return Math.min(INTENT_RECOVERY_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, soonest));
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass now: every open intent past the grace period gets its outcome. */
  async recoverNow(): Promise<RecoveryRun & { nextDueMs?: number }> {
    const result: RecoveryRun & { nextDueMs?: number } = { recovered: [], waiting: 0, failed: 0 };
    let open: ChangeEntry[];
    try {
      open = await this.ledger.openIntents();
    } catch (e) {
      this.logger.warn('ledger intent recovery could not read the open intents; it tries again in a minute', { error: (e as Error).message });
      return result;
    }
    const now = this.clock.now();
    for (const intent of open) {
      const due = Date.parse(intent.at) + this.graceMs;
      if (due > now) {
        result.waiting++;
        result.nextDueMs = Math.min(result.nextDueMs ?? due, due);
        continue;
      }
      try {
        const seen = await this.observe(intent);
        if (!seen) {
          result.failed++;
          continue;
        }
        const record = () => this.recorder.recordRecovered(recoveredRecord(intent, seen));
        // the outcome carries the intent's cluster, as the write's own would have
        const entry = await (intent.cluster !== undefined ? withinCluster(intent.cluster, record) : record());
        result.recovered.push(entry.id);
        this.logger.warn('recovered the outcome of a write svc sent without recording its answer', {
          intentId: intent.id,
          ledgerId: entry.id,
          outcome: entry.outcome.status,
          finding: entry.recovery?.finding,
          target: `${intent.target.kind}/${intent.target.name}`,
        });
      } catch (e) {
        // another replica closed it first: its outcome stands
        if (e instanceof ConflictError) continue;
        result.failed++;
        this.logger.error('ledger intent recovery could not record an outcome; it tries again at the next run', {
          intentId: intent.id,
          error: (e as Error).message,
        });
      }
    }
    return result;
  }

  /**
   * The object as it is now, read as svc (the caller who asked may no longer
   * be allowed to read it). undefined when the cluster cannot be reached now
   * (tried again at the next run: an outage is no finding); a refusal (403)
   * is one.
   */
  private async observe(intent: ChangeEntry): Promise<Observation | undefined> {
    const t = intent.target;
    try {
      const read = () => this.reader.get({ apiVersion: t.apiVersion, kind: t.kind, name: t.name, namespace: t.namespace });
      // in the cluster the write was sent to (SVC_CLUSTERS)
      const object = await actingAsService(() => (intent.cluster !== undefined ? withinCluster(intent.cluster, read) : read()));
      return { object };
    } catch (e) {
      if (e instanceof DependencyError || e instanceof NotConfiguredError) {
        this.logger.warn('ledger intent recovery could not reach the cluster; it tries again at the next run', { intentId: intent.id, error: e.message });
        return undefined;
      }
      return { error: e instanceof DomainError ? e.message : 'the cluster call failed unexpectedly' };
    }
  }
}
