import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../domain/ports/logger.js';
import type { Config } from '../../infrastructure/config/config.js';
import { answerHealthz, isHealthProbe } from './healthz.js';
import { HTTP_ERROR_CODES } from './http-errors.js';
import { beginRequest } from './middleware/request-context.js';
import { refuse } from './refuse.js';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * The most bytes of request headers node reads (its default is 16 KiB): room
 * for an Authorization header past the longest token svc reads, so an
 * oversized token is the gate's 401 (refused unread) rather than node's 431;
 * past this the parser still answers 431, so a connection's headers stay
 * bounded.
 */
export const MAX_HEADER_BYTES = 32 * 1024;

/** The most requests held while the app is being built; past it a request is refused with Retry-After (bounded memory). */
export const MAX_HELD_REQUESTS = 1024;

/** A server listening before the app exists: it answers /healthz and holds every other request until `attach`. */
export interface StartingServer {
  server: http.Server;
  url: string;
  /** Hands every request to `serve`, the held ones first, in the order they came. */
  attach(serve: Handler): void;
  /** The app could not be built: the held requests are answered 500 and the server closes. */
  abandon(): Promise<void>;
  /**
   * A SIGTERM before the app was attached: every held request, and every one
   * that comes before the listener closes, is answered 503
   * `SERVICE_UNAVAILABLE` with `Connection: close` and `Retry-After: 1` once
   * its body has arrived (answering with a body still arriving would reset
   * the connection); then the listener closes and the connections end,
   * bounded by `graceMs`.
   */
  stopStarting(graceMs: number): Promise<void>;
  /**
   * Stops taking connections (a SIGTERM): once the connections the kernel
   * already queued are taken and read (takeQueuedConnections: closing the
   * listener with some still queued resets them). The connections it holds
   * stay open: their requests are answered.
   */
  stopAccepting(): Promise<void>;
  /** Resolves once the listener is closed and every connection has ended. */
  readonly drained: Promise<void>;
}

/**
 * Two turns of the event loop: at least one poll phase between now and the
 * resolve, whichever phase this runs in, so the bytes received by now on the
 * connections taken have been read.
 */
export function afterPendingIo(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/**
 * Turns the event loop until the connections the kernel queued for `server`
 * are all taken: node takes about one queued connection per turn, so after a
 * blocked loop (a module loading) dozens wait, and closing the listener then
 * resets each of them (the client sees ECONNRESET). Ends after two turns in a
 * row that took none (bounded: `maxTurns`).
 */
export async function takeQueuedConnections(server: http.Server, maxTurns = 10_000): Promise<void> {
  let taken = 0;
  const count = () => void taken++;
  server.on('connection', count);
  try {
    for (let turn = 0, quiet = 0; turn < maxTurns && quiet < 2; turn++) {
      const before = taken;
      await afterPendingIo();
      quiet = taken === before ? quiet + 1 : 0;
    }
  } finally {
    server.off('connection', count);
  }
}

/**
 * Listens on the configured host and port before the composition is built, so
 * that start-up (loading the adapters, the tools, express) does not delay the
 * probe: `/healthz` is answered at once (200 while the process runs, SPEC),
 * with its request id and access line; every other request waits, unread, for
 * `attach` and then goes through the request gate like any other.
 */
export async function openServer(config: Pick<Config, 'server'>, logger: Logger, maxHeld = MAX_HELD_REQUESTS): Promise<StartingServer> {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnections } = config.server;
  // node checks the header and request timeouts on this interval: keep it well under the shortest
  const connectionsCheckingInterval = Math.max(50, Math.min(30_000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 4)));
  let held: [http.IncomingMessage, http.ServerResponse][] | undefined = [];
  let handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (isHealthProbe(req.method, pathOf(req))) return answerHealth(logger, req, res);
    if (held!.length >= maxHeld) {
      const { requestId } = beginRequest(logger, req.method ?? 'GET', pathOf(req), res);
      res.setHeader('Retry-After', '1');
      return refuse(res, requestId, {
        code: HTTP_ERROR_CODES.RATE_LIMITED,
        message: `svc is starting and already holds ${maxHeld} requests; retry after 1 s`,
      });
    }
    held!.push([req, res]);
  };
  const server = http.createServer({ connectionsCheckingInterval, maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => handle(req, res));
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = requestTimeoutMs;
  server.keepAliveTimeout = keepAliveTimeoutMs;
  if (maxConnections > 0) server.maxConnections = maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.server.port, config.server.host, () => resolve());
  });
  const drained = new Promise<void>((resolve) => server.once('close', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
  const url = `http://${host}:${port}`;
  logger.info('svc listening', { url, auth: config.server.authRequired ? 'bearer' : 'open' });

  const takeHeld = () => {
    const waiting = held ?? [];
    held = undefined;
    return waiting;
  };
  let stopped: Promise<void> | undefined;
  const stopAccepting = () =>
    (stopped ??= takeQueuedConnections(server).then(() => {
      // the listener only: http.Server#close would also end the connections whose request was not read yet
      if (server.listening) net.Server.prototype.close.call(server);
    }));
  return {
    server,
    url,
    drained,
    stopAccepting,
    attach(serve) {
      handle = serve;
      for (const [req, res] of takeHeld()) if (!res.writableEnded && !req.destroyed) serve(req, res);
    },
    async abandon() {
      const failed = (req: http.IncomingMessage, res: http.ServerResponse) =>
        refuseRead(logger, req, res, { code: HTTP_ERROR_CODES.INTERNAL_ERROR, message: 'svc failed to start; see its log' });
      handle = failed;
      for (const [req, res] of takeHeld()) failed(req, res);
      await stopAccepting();
      server.close();
      await drained;
    },
    async stopStarting(graceMs) {
      const stopping = (req: http.IncomingMessage, res: http.ServerResponse) => {
        if (isHealthProbe(req.method, pathOf(req))) return answerHealth(logger, req, res);
        res.setHeader('Retry-After', '1');
        refuseRead(logger, req, res, { code: HTTP_ERROR_CODES.SERVICE_UNAVAILABLE, message: 'svc is stopping (SIGTERM before it was ready); retry' });
      };
      handle = stopping;
      for (const [req, res] of takeHeld()) if (!res.writableEnded && !req.destroyed) stopping(req, res);
      await stopAccepting();
      server.close();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await drained;
      clearTimeout(timer);
    },
  };
}

const pathOf = (req: http.IncomingMessage) => (req.url ?? '/').split('?')[0];

/**
 * An error answer with `Connection: close`, once the request's body has
 * arrived (read and dropped; the server's request timeout bounds a body that
 * never ends): closing a connection with bytes of it unread resets it, and
 * the client then sees ECONNRESET instead of the answer.
 */
function refuseRead(logger: Logger, req: http.IncomingMessage, res: http.ServerResponse, error: { code: string; message: string }): void {
  const answer = () => {
    if (res.headersSent || res.destroyed) return;
    const { requestId } = beginRequest(logger, req.method ?? 'GET', pathOf(req), res);
    res.setHeader('Connection', 'close');
    refuse(res, requestId, error);
  };
  if (req.complete) return answer();
  req.once('end', answer);
  req.resume();
}

/** /healthz before the app exists: the gate's answer and access line. */
function answerHealth(logger: Logger, req: http.IncomingMessage, res: http.ServerResponse): void {
  answerHealthz(req, res, beginRequest(logger, req.method ?? 'GET', '/healthz', res).requestId);
}
