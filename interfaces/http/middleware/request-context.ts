import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../../domain/ports/logger.js';

/**
 * Gives every request a fresh id (X-Request-Id), a child logger carrying it,
 * and one access line when the response finishes. The query string is left
 * out of the access line: it may carry a repository URL with credentials.
 */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const requestId = randomUUID();
    const started = process.hrtime.bigint();
    const log = logger.child({ requestId });
    res.locals.requestId = requestId;
    res.locals.log = log;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      log.info('request', {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  };
}
