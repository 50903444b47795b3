import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Caller } from '../../../domain/auth/caller.js';
import type { Logger } from '../../../domain/ports/logger.js';
import type { Metrics } from '../../../domain/ports/metrics.js';
import { methodLabel, routeTemplate } from '../route-template.js';

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

/** The iso timestamp of the current millisecond, formatted once per millisecond however many requests share it. */
let stampMs = -1;
let stamp = '';
export function isoNow(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
}

interface Begun {
  method: string;
  path: string;
  started: bigint;
  log: Logger;
  metrics?: Metrics;
  caller?: Caller;
}
const BEGUN = Symbol('svc.request');
type BegunResponse = ServerResponse & { [BEGUN]?: Begun };

/** One listener for every response: the access line and the request's metrics, from what beginRequest kept on the response. */
function accessLine(this: BegunResponse) {
  const b = this[BEGUN]!;
  const durationMs = Number(process.hrtime.bigint() - b.started) / 1e6;
  b.metrics?.httpRequest(methodLabel(b.method), routeTemplate(b.path), this.statusCode, durationMs / 1000);
  const line: Record<string, unknown> = {
    method: b.method,
    path: b.path,
    status: this.statusCode,
    durationMs,
  };
  if (b.caller) {
    line.user = b.caller.username;
    line.roles = b.caller.roles;
    line.tokenKind = b.caller.kind;
  }
  b.log.info('request', line);
}

/** Puts the authenticated caller (name, roles, token kind: never the token) on the request's access line. */
export function noteCaller(res: ServerResponse, caller: Caller): void {
  const b = (res as BegunResponse)[BEGUN];
  if (b) b.caller = caller;
}

/**
 * Starts one request: a fresh id, a logger carrying it, and one access line
 * (and the request counted in `metrics`, by route template) when the response finishes. Whatever answers the request sends the id as
 * the X-Request-Id header (the gate's own answers, the kept answers, and
 * gateMiddleware for the express app). The query string is left out of the
 * access line: it may carry a repository URL with credentials.
 */
export function beginRequest(logger: Logger, method: string, path: string, res: ServerResponse, metrics?: Metrics): { requestId: string; log: Logger } {
  const requestId = randomUUID();
  const log = new RequestLogger(logger, requestId);
  (res as BegunResponse)[BEGUN] = { method, path, started: process.hrtime.bigint(), log, metrics };
  res.on('finish', accessLine);
  return { requestId, log };
}
