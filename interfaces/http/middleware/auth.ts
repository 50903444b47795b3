import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export type BearerVerdict = 'ok' | 'missing' | 'invalid';

/**
 * Judges an Authorization header against the configured token (every header
 * is 'ok' when none is configured). Compares SHA-256 digests in constant
 * time, so neither the token's content nor its length leaks through timing.
 * The request gate (interfaces/http/request-gate.ts) is its one caller.
 */
export function bearerChecker(token: string | undefined): (authorization: string | undefined) => BearerVerdict {
  const expected = token === undefined ? undefined : digest(token);
  return (authorization) => {
    if (expected === undefined) return 'ok';
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) return 'missing';
    return timingSafeEqual(digest(match[1]), expected) ? 'ok' : 'invalid';
  };
}
