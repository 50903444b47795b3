import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Caller } from '../../domain/auth/caller.js';
import { MAX_TOKEN_CHARS, type Authentication, type Authenticator } from '../../domain/ports/authenticator.js';

/** The caller, or why there is none: no usable `Authorization` header, or a token that was refused (the phrase is safe to show). */
export type Identity = Caller | { missing: true } | { refused: string; forbidden?: true };

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
/** `Bearer `, a few spaces, and the longest token an authenticator reads. */
const MAX_HEADER_CHARS = MAX_TOKEN_CHARS + 32;
/** Verdicts kept per connection: a few callers sharing one pooled connection, bounded. */
const PER_SOCKET = 4;
type Verdict = { header: string; caller: Caller; until: number; epoch: number };

/**
 * Who sent a request, for the request gate: the bearer token judged by the
 * Authenticator, synchronously for a static token or a JWT verified before.
 * The last few verdicts a keep-alive connection passed with are kept per
 * socket (header, caller, until when, the authenticator's epoch; at most
 * PER_SOCKET, newest first), so the next request on it hashes nothing, also
 * when a portal or gateway sends several users' tokens over one pooled
 * connection; only headers that passed are kept, so the comparison can tell
 * nothing about a token.
 */
export function identityOf(authenticator: Authenticator) {
  const passed = new WeakMap<Socket, Verdict[]>();
  const judged = (socket: Socket, header: string, a: Authentication): Identity => {
    if ('refused' in a) return a;
    const verdict = { header, caller: a.caller, until: a.until, epoch: authenticator.epoch };
    const kept = passed.get(socket);
    if (kept === undefined) passed.set(socket, [verdict]);
    else {
      const at = kept.findIndex((v) => v.header === header);
      if (at >= 0) kept.splice(at, 1);
      else if (kept.length >= PER_SOCKET) kept.pop();
      kept.unshift(verdict);
    }
    return a.caller;
  };
  return (req: IncomingMessage): Identity | Promise<Identity> => {
    const header = req.headers.authorization;
    if (header === undefined) return { missing: true };
    const kept = passed.get(req.socket);
    if (kept !== undefined)
      for (const seen of kept)
        if (seen.header === header && seen.epoch === authenticator.epoch && (seen.until === Infinity || seen.until > Date.now())) return seen.caller;
    // refused unread: no parsing, hashing or verification of a header this long
    if (header.length > MAX_HEADER_CHARS) return { refused: 'token too long' };
    const match = BEARER.exec(header);
    if (!match) return { missing: true };
    const a = authenticator.authenticate(match[1]);
    const socket = req.socket;
    return a instanceof Promise ? a.then((x) => judged(socket, header, x)) : judged(socket, header, a);
  };
}

const keys = new WeakMap<Caller, string>();
/** The rate-limit key of a caller: a digest of their identity id (never a token), so one identity shares one budget whatever token it sends. */
export function callerKey(caller: Caller): string {
  let key = keys.get(caller);
  if (key === undefined) {
    key = createHash('sha256').update(caller.id).digest('hex').slice(0, 32);
    keys.set(caller, key);
  }
  return key;
}
