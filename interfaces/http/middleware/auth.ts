import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { UnauthorizedError } from '../http-errors.js';
import { isDocsPath } from '../docs-page.js';

/** Routes reachable without a bearer token (SPEC.md, Authentication 1 and 2); the /docs page and its assets too (isDocsPath). */
const PUBLIC_PATHS = new Set(['/healthz', '/api/v1/openapi']);

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export type BearerVerdict = 'ok' | 'missing' | 'invalid';

/**
 * Judges an Authorization header against the configured token (every header
 * is 'ok' when none is configured). Compares SHA-256 digests in constant
 * time, so neither the token's content nor its length leaks through timing.
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

/** Bearer gate in front of every route but the public ones. */
export function bearerAuth(token: string | undefined) {
  const check = bearerChecker(token);
  return (req: Request, res: Response, next: NextFunction) => {
    if (token === undefined) return next();
    const path = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
    if (PUBLIC_PATHS.has(path) || (req.method === 'GET' && isDocsPath(req.path))) return next();
    const verdict = check(req.headers.authorization);
    if (verdict === 'ok') return next();
    res.setHeader('WWW-Authenticate', 'Bearer realm="svc"');
    // An unauthenticated body is never read: close instead of draining it for keep-alive.
    if (hasBody(req)) res.setHeader('Connection', 'close');
    next(new UnauthorizedError(verdict === 'invalid' ? 'Invalid bearer token' : 'Missing bearer token: send Authorization: Bearer <token>'));
  };
}
