import type { DependencyContainer } from 'tsyringe';
import { GetChange } from '../../application/ledger/get-change.js';
import { LedgerRetention } from '../../application/ledger/ledger-retention.js';
import { ListChanges } from '../../application/ledger/list-changes.js';
import { VerifyLedger } from '../../application/ledger/verify-ledger.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { Config } from '../config/config.js';
import { TOKENS } from '../tokens.js';
import { NoopTracer } from '../tracing/noop-tracer.js';
import { tracedChangeLedger } from '../tracing/traced-change-ledger.js';

/** The ledger port (behind its span decorator when tracing is on) and the use cases that read it. */
export function registerLedger(c: DependencyContainer, config: Config, ledger: ChangeLedger, store: string): ChangeLedger {
  const tracer = c.resolve(TOKENS.Tracer);
  const port = tracer instanceof NoopTracer ? ledger : tracedChangeLedger(ledger, tracer, store);
  c.register(TOKENS.ChangeLedger, { useValue: port });
  c.register(TOKENS.ListChanges, { useValue: new ListChanges(port) });
  c.register(TOKENS.GetChange, { useValue: new GetChange(port) });
  c.register(TOKENS.VerifyLedger, { useValue: new VerifyLedger(port) });
  c.register(TOKENS.LedgerRetention, {
    useValue: new LedgerRetention(ledger, config.ledger.retentionDays, c.resolve(TOKENS.Clock), c.resolve(TOKENS.Logger)),
  });
  return port;
}
