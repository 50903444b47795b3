import { int, type Env } from './env-parsers.js';

export interface LedgerConfig {
  /** SVC_LEDGER_RETENTION_DAYS: entries older than this are pruned (the chain stays verifiable). */
  retentionDays: number;
}

/** A year: long enough for an audit cycle; a SIEM keeps longer if asked to. */
export const DEFAULT_LEDGER_RETENTION_DAYS = 365;

export function parseLedgerConfig(env: Env): LedgerConfig {
  return { retentionDays: int(env, 'SVC_LEDGER_RETENTION_DAYS', DEFAULT_LEDGER_RETENTION_DAYS, 1, 36_500) };
}
