import { ValidationError } from '../errors.js';
import { SESSION_KINDS, type SessionKind } from './session.js';

/** `<prefix>_<32 lowercase hex>`: 128 random bits behind a per-tool prefix. */
const ID = new RegExp(`^(${Object.values(SESSION_KINDS).join('|')})_[0-9a-f]{32}$`);

/** A fresh id; `randomHex32` must give 32 hex digits from a CSPRNG (an adapter passes crypto.randomBytes). */
export function newSessionId(kind: SessionKind, randomHex32: string): string {
  if (!/^[0-9a-f]{32}$/.test(randomHex32)) throw new Error('session id randomness must be 32 lowercase hex digits');
  return `${SESSION_KINDS[kind]}_${randomHex32}`;
}

/** true when `id` is well formed and belongs to `kind`; nothing else is ever looked up or used in a path. */
export function isSessionId(id: unknown, kind: SessionKind): id is string {
  return typeof id === 'string' && ID.test(id) && id.startsWith(`${SESSION_KINDS[kind]}_`);
}

/**
 * The 400 for a session id that is malformed, unknown or expired: says which
 * call starts a new one. The id is echoed only when it is well formed.
 */
export function unknownSession(kind: SessionKind, id: string, startWith: string): ValidationError {
  const shown = isSessionId(id, kind) ? id : '(malformed id)';
  return new ValidationError(`Unknown or expired session: ${shown}. ${startWith}`);
}
