import type { NextFunction, Request, Response } from 'express';
import { HTTP_ERROR_CODES, HttpError } from '../http-errors.js';
import type { Config } from '../../../infrastructure/config/config.js';
import { isLoopbackHost } from '../../../infrastructure/config/server-config.js';

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** true when a Host header names this machine by a loopback name (any port). */
export function isLocalHostHeader(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return LOCAL_NAMES.has(name.toLowerCase());
}

/** The guard applies when svc runs without a token on a loopback bind (not with SVC_ALLOW_UNAUTHENTICATED behind a proxy). */
export function runsOpenOnLoopback(config: Config): boolean {
  return config.server.authToken === undefined && isLoopbackHost(config.server.host);
}

/**
 * Without a token svc runs open on loopback only; a page in a browser could
 * still reach it through DNS rebinding (its own name resolving to 127.0.0.1).
 * Refusing Host headers other than loopback names closes that door.
 * /healthz stays open: it tells nothing and must always answer.
 */
export function localHostGuard() {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (req.path === '/healthz' || isLocalHostHeader(req.headers.host)) return next();
    next(
      new HttpError(
        HTTP_ERROR_CODES.FORBIDDEN,
        'This server runs without SVC_AUTH_TOKEN and answers only requests addressed to localhost, 127.0.0.1 or [::1]; set SVC_AUTH_TOKEN to serve other host names',
      ),
    );
  };
}
