import type { DependencyContainer } from 'tsyringe';
import { GetChange } from '../../application/ledger/get-change.js';
import { LedgerRetention } from '../../application/ledger/ledger-retention.js';
import { ListChanges } from '../../application/ledger/list-changes.js';
import { RecoverIntents } from '../../application/ledger/recover-intents.js';
import { VerifyLedger } from '../../application/ledger/verify-ledger.js';
import { ChangeRecorder } from '../../application/ledger/change-recorder.js';
import { RevertChange } from '../../application/ledger/revert-change.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { Config } from '../config/config.js';
import { configSecrets } from '../config/config-secrets.js';
import { TOKENS } from '../tokens.js';
import { NoopTracer } from '../tracing/noop-tracer.js';
import { tracedChangeLedger } from '../tracing/traced-change-ledger.js';

/**
 * The ledger port (behind its span decorator when tracing is on), the one
 * ChangeRecorder every writing tool sends its writes through, and the use
 * cases that read and revert, retention and the recovery of open intents.
 * Needs the cluster ports, the policy source and the metrics registered first.
 */
export function registerLedger(c: DependencyContainer, config: Config, ledger: ChangeLedger, store: string): ChangeRecorder {
  const tracer = c.resolve(TOKENS.Tracer);
  const port = tracer instanceof NoopTracer ? ledger : tracedChangeLedger(ledger, tracer, store);
  c.register(TOKENS.ChangeLedger, { useValue: port });
  c.register(TOKENS.ListChanges, { useValue: new ListChanges(port) });
  c.register(TOKENS.GetChange, { useValue: new GetChange(port) });
  c.register(TOKENS.VerifyLedger, { useValue: new VerifyLedger(port, config.ledger.hmacSecret) });
  const recorder = new ChangeRecorder(port, c.resolve(TOKENS.ClusterReader), c.resolve(TOKENS.Logger), configSecrets(config));
  c.register(TOKENS.ChangeRecorder, { useValue: recorder });
  // an undo passes the write guard like any write: the allow-lists, the policies, svc's risk and the second-approver rule
  const guard = { scope: config.writes, policies: c.resolve(TOKENS.PolicySource), approval: config.auth, metrics: c.resolve(TOKENS.Metrics) };
  c.register(TOKENS.RevertChange, {
    useValue: new RevertChange(port, c.resolve(TOKENS.ClusterReader), c.resolve(TOKENS.ClusterWriter), recorder, tracer, guard),
  });
  c.register(TOKENS.RecoverIntents, {
    useValue: new RecoverIntents(
      port,
      c.resolve(TOKENS.ClusterReader),
      recorder,
      c.resolve(TOKENS.Clock),
      c.resolve(TOKENS.Logger),
      config.ledger.intentGraceSeconds * 1000,
    ),
  });
  c.register(TOKENS.LedgerRetention, {
    useValue: new LedgerRetention(ledger, config.ledger.retentionDays, c.resolve(TOKENS.Clock), c.resolve(TOKENS.Logger)),
  });
  return recorder;
}
