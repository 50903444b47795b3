import { GetChange } from '../../application/ledger/get-change.js';
import { LedgerRetention } from '../../application/ledger/ledger-retention.js';
import { ListChanges } from '../../application/ledger/list-changes.js';
import { RecoverIntents } from '../../application/ledger/recover-intents.js';
import { VerifyLedger } from '../../application/ledger/verify-ledger.js';
import { ChangeRecorder } from '../../application/ledger/change-recorder.js';
import { RevertChange, type RevertRules } from '../../application/ledger/revert-change.js';
import type { GuardedWrite } from '../../application/guarded-write/guarded-write.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Metrics } from '../../domain/ports/metrics.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { Config } from '../config/config.js';
import { ledgerKeys } from '../config/ledger-config.js';
import { configSecrets } from '../config/config-secrets.js';
import { NoopTracer } from '../tracing/noop-tracer.js';
import { tracedChangeLedger } from '../tracing/traced-change-ledger.js';

/** What the ledger module is built from. */
export interface LedgerDeps {
  config: Config;
  /** The ledger adapter (already metered). */
  ledger: ChangeLedger;
  /** Its kind, for the span attributes ('file', 'redis', 'custom'). */
  store: string;
  tracer: Tracer;
  reader: ClusterReader;
  writer: ClusterWriter;
  clock: Clock & Timers;
  logger: Logger;
  /** The one guarded-write pipeline an undo goes through like any write. */
  guard: GuardedWrite;
  metrics: Metrics;
  /** With a fleet (SVC_CLUSTERS): the caller as an entry's cluster sees them, or its refusal. */
  inCluster?: RevertRules['inCluster'];
}

/** What the ledger module gives the rest of the composition. */
export interface LedgerExports {
  /** The ledger port, behind its span decorator when tracing is on. */
  port: ChangeLedger;
  /** The one ChangeRecorder every writing tool sends its writes through. */
  recorder: ChangeRecorder;
  revert: RevertChange;
  listChanges: ListChanges;
  getChange: GetChange;
  verifyLedger: VerifyLedger;
  /** Background work a started server owns. */
  recoverIntents: RecoverIntents;
  retention: LedgerRetention;
}

/**
 * The ledger port (behind its span decorator when tracing is on), the one
 * ChangeRecorder every writing tool sends its writes through, and the use
 * cases that read and revert, retention and the recovery of open intents.
 * Takes every input as an argument and touches no container.
 */
export function registerLedger(deps: LedgerDeps): LedgerExports {
  const { config, ledger, tracer, reader, clock, logger } = deps;
  const port = tracer instanceof NoopTracer ? ledger : tracedChangeLedger(ledger, tracer, deps.store);
  const recorder = new ChangeRecorder(port, reader, logger, configSecrets(config));
  // an undo passes the guarded-write pipeline like any write (the allow-lists, the policies, svc's risk), and the second-approver rule
  return {
    port,
    recorder,
    revert: new RevertChange(
      port,
      deps.guard,
      recorder,
      { approval: config.auth, metrics: deps.metrics, ...(deps.inCluster ? { inCluster: deps.inCluster } : {}) },
      tracer,
    ),
    listChanges: new ListChanges(port),
    getChange: new GetChange(port),
    verifyLedger: new VerifyLedger(port, ledgerKeys(config.ledger)),
    recoverIntents: new RecoverIntents(port, reader, recorder, clock, logger, config.ledger.intentGraceSeconds * 1000),
    retention: new LedgerRetention(ledger, config.ledger.retentionDays, clock, logger),
  };
}
