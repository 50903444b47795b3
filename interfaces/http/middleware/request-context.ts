import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Logger } from '../../../domain/ports/logger.js';

/**
 * A logger bound to one request id. It adds the id to each line as it is
 * written instead of building a child logger per request, which keeps the
 * per-request cost of logging near zero when nothing is logged.
 */
class RequestLogger implements Logger {
  constructor(
    private readonly base: Logger,
    private readonly requestId: string,
  ) {}
  private with(fields?: Record<string, unknown>) {
    return fields ? { requestId: this.requestId, ...fields } : { requestId: this.requestId };
  }
  debug(msg: string, fields?: Record<string, unknown>) {
    this.base.debug(msg, this.with(fields));
  }
  info(msg: string, fields?: Record<string, unknown>) {
    this.base.info(msg, this.with(fields));
  }
  warn(msg: string, fields?: Record<string, unknown>) {
    this.base.warn(msg, this.with(fields));
  }
  error(msg: string, fields?: Record<string, unknown>) {
    this.base.error(msg, this.with(fields));
  }
  child(fields: Record<string, unknown>): Logger {
    return this.base.child({ requestId: this.requestId, ...fields });
  }
}

/**
 * Starts one request: a fresh id (also the X-Request-Id header), a logger
 * carrying it, and one access line when the response finishes. The query
 * string is left out of the access line: it may carry a repository URL with
 * credentials.
 */
export function beginRequest(logger: Logger, method: string, path: string, res: ServerResponse): { requestId: string; log: Logger } {
  const requestId = randomUUID();
  const started = process.hrtime.bigint();
  const log = new RequestLogger(logger, requestId);
  res.setHeader('X-Request-Id', requestId);
  res.on('finish', () => {
    log.info('request', { method, path, status: res.statusCode, durationMs: Number(process.hrtime.bigint() - started) / 1e6 });
  });
  return { requestId, log };
}
