import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Caller } from '../../domain/auth/caller.js';
import { MAX_TOKEN_CHARS, type Authentication, type Authenticator } from '../../domain/ports/authenticator.js';

/** The caller, or why there is none: no usable `Authorization` header, or a token that was refused (the phrase is safe to show). */
export type Identity = Caller | { missing: true } | { refused: string };

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
/** `Bearer `, a few spaces, and the longest token an authenticator reads. */
const MAX_HEADER_CHARS = MAX_TOKEN_CHARS + 32;

/**
 * Who sent a request, for the request gate: the bearer token judged by the
 * Authenticator, synchronously for a static token or a JWT verified before.
 * The verdict a keep-alive connection last passed with is kept per socket
 * (header, caller, until when, the authenticator's epoch), so the next
 * request on it hashes nothing; only headers that passed are kept, so the
 * comparison can tell nothing about a token.
 */
export function identityOf(authenticator: Authenticator) {
  const passed = new WeakMap<Socket, { header: string; caller: Caller; until: number; epoch: number }>();
  const judged = (socket: Socket, header: string, a: Authentication): Identity => {
    if ('refused' in a) return a;
    passed.set(socket, { header, caller: a.caller, until: a.until, epoch: authenticator.epoch });
    return a.caller;
  };
  return (req: IncomingMessage): Identity | Promise<Identity> => {
    const header = req.headers.authorization;
    if (header === undefined) return { missing: true };
    const seen = passed.get(req.socket);
    if (seen !== undefined && seen.header === header && seen.epoch === authenticator.epoch && (seen.until === Infinity || seen.until > Date.now()))
      return seen.caller;
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
/** The rate-limit key of a caller: a digest of their kind and name (never a token), so one identity shares one budget whatever token it sends. */
export function callerKey(caller: Caller): string {
  let key = keys.get(caller);
  if (key === undefined) {
    key = createHash('sha256').update(`${caller.kind}\0${caller.username}`).digest('hex').slice(0, 32);
    keys.set(caller, key);
  }
  return key;
}
