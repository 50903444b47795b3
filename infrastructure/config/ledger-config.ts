import { ConfigError, int, str, type Env } from './env-parsers.js';

export interface LedgerConfig {
  /** SVC_LEDGER_RETENTION_DAYS: entries older than this are pruned (the chain stays verifiable). */
  retentionDays: number;
  /** SVC_LEDGER_KEY: each entry's hash is an HMAC-SHA256 under it (a credential: scrubbed everywhere, never logged). */
  hmacSecret?: string;
  /** SVC_LEDGER_INTENT_GRACE_SECONDS: an intent without an outcome this old is recovered (its object read, an outcome recorded). */
  intentGraceSeconds: number;
}

/** Longer than any write takes (the cluster client's own timeouts are well under it), so recovery never races a write in flight. */
export const DEFAULT_INTENT_GRACE_SECONDS = 120;

/** A year: long enough for an audit cycle; a SIEM keeps longer if asked to. */
export const DEFAULT_LEDGER_RETENTION_DAYS = 365;
/** An HMAC key shorter than this is guessable offline from one entry. */
export const MIN_LEDGER_KEY_CHARS = 32;

export function parseLedgerConfig(env: Env): LedgerConfig {
  const key = str(env, 'SVC_LEDGER_KEY');
  if (key !== undefined && key.length < MIN_LEDGER_KEY_CHARS)
    throw new ConfigError('SVC_LEDGER_KEY', `must be at least ${MIN_LEDGER_KEY_CHARS} characters (e.g. openssl rand -hex 32), got ${key.length}`);
  return {
    retentionDays: int(env, 'SVC_LEDGER_RETENTION_DAYS', DEFAULT_LEDGER_RETENTION_DAYS, 1, 36_500),
    intentGraceSeconds: int(env, 'SVC_LEDGER_INTENT_GRACE_SECONDS', DEFAULT_INTENT_GRACE_SECONDS, 1, 86_400),
    ...(key !== undefined ? { hmacSecret: key } : {}),
  };
}
