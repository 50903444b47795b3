import type { ChainAnchor } from '../../domain/ledger/hash-chain.js';
import { ConfigError, int, str, type Env } from './env-parsers.js';

export interface LedgerConfig {
  /** SVC_LEDGER_RETENTION_DAYS: entries older than this are pruned (the chain stays verifiable). */
  retentionDays: number;
  /** SVC_LEDGER_KEY: each entry's hash, the head and the anchor are HMAC-SHA256 under it (a credential: scrubbed everywhere, never logged). */
  hmacSecret?: string;
  /** SVC_LEDGER_KEY_PREVIOUS: the key before a rotation; what it sealed still verifies (a credential too). */
  previousHmacSecret?: string;
  /** SVC_LEDGER_ACCEPT_HEAD: a head (seq and hash) the operator accepted unsealed, after comparing it with a copy kept elsewhere. */
  acceptHead?: ChainAnchor;
  /** SVC_LEDGER_INTENT_GRACE_SECONDS: an intent without an outcome this old is recovered (its object read, an outcome recorded). */
  intentGraceSeconds: number;
}

/** Longer than any write takes (the cluster client's own timeouts are well under it), so recovery never races a write in flight. */
export const DEFAULT_INTENT_GRACE_SECONDS = 120;

/** A year: long enough for an audit cycle; a SIEM keeps longer if asked to. */
export const DEFAULT_LEDGER_RETENTION_DAYS = 365;
/** An HMAC key shorter than this is guessable offline from one entry. */
export const MIN_LEDGER_KEY_CHARS = 32;

function ledgerKey(env: Env, name: string): string | undefined {
  const key = str(env, name);
  if (key !== undefined && key.length < MIN_LEDGER_KEY_CHARS)
    throw new ConfigError(name, `must be at least ${MIN_LEDGER_KEY_CHARS} characters (e.g. openssl rand -hex 32), got ${key.length}`);
  return key;
}

function acceptedHead(env: Env, key: string | undefined): ChainAnchor | undefined {
  const text = str(env, 'SVC_LEDGER_ACCEPT_HEAD');
  if (text === undefined) return undefined;
  if (key === undefined) throw new ConfigError('SVC_LEDGER_ACCEPT_HEAD', 'needs SVC_LEDGER_KEY (without a key no head is sealed, so none is accepted)');
  const m = /^([1-9][0-9]{0,15}):([0-9a-f]{64})$/.exec(text);
  if (!m) throw new ConfigError('SVC_LEDGER_ACCEPT_HEAD', 'must be <seq>:<hash> as the integrity check names the head (e.g. 1204:3f0c…, 64 hex digits)');
  return { seq: Number(m[1]), hash: m[2] };
}

export function parseLedgerConfig(env: Env): LedgerConfig {
  const key = ledgerKey(env, 'SVC_LEDGER_KEY');
  const previous = ledgerKey(env, 'SVC_LEDGER_KEY_PREVIOUS');
  if (previous !== undefined && key === undefined)
    throw new ConfigError('SVC_LEDGER_KEY_PREVIOUS', 'needs SVC_LEDGER_KEY (the key after the rotation, which seals from now on)');
  if (previous !== undefined && previous === key)
    throw new ConfigError('SVC_LEDGER_KEY_PREVIOUS', 'is the same as SVC_LEDGER_KEY: set it to the key before the rotation');
  const acceptHead = acceptedHead(env, key);
  return {
    retentionDays: int(env, 'SVC_LEDGER_RETENTION_DAYS', DEFAULT_LEDGER_RETENTION_DAYS, 1, 36_500),
    intentGraceSeconds: int(env, 'SVC_LEDGER_INTENT_GRACE_SECONDS', DEFAULT_INTENT_GRACE_SECONDS, 1, 86_400),
    ...(key !== undefined ? { hmacSecret: key } : {}),
    ...(previous !== undefined ? { previousHmacSecret: previous } : {}),
    ...(acceptHead ? { acceptHead } : {}),
  };
}

/** The ledger's keys as its adapters and the integrity check take them. */
export function ledgerKeys(config: LedgerConfig): { key?: string; previousKey?: string; acceptHead?: ChainAnchor } {
  return {
    ...(config.hmacSecret !== undefined ? { key: config.hmacSecret } : {}),
    ...(config.previousHmacSecret !== undefined ? { previousKey: config.previousHmacSecret } : {}),
    ...(config.acceptHead ? { acceptHead: config.acceptHead } : {}),
  };
}
