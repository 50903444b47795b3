import http from 'node:http';
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
}

/**
 * Listens on the configured host and port before the composition is built, so
 * that start-up (loading the adapters, the tools, express) does not delay the
 * probe: `/healthz` is answered at once (200 while the process runs, SPEC),
 * with its request id and access line; every other request waits, unread, for
 * `attach` and then goes through the request gate like any other.
 */
export async function openServer(config: Config, logger: Logger, maxHeld = MAX_HELD_REQUESTS): Promise<StartingServer> {
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
  const { port } = server.address() as AddressInfo;
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
  const url = `http://${host}:${port}`;
  logger.info('svc listening', { url, auth: config.server.authRequired ? 'bearer' : 'open' });

  const takeHeld = () => {
    const waiting = held ?? [];
    held = undefined;
    return waiting;
  };
  return {
    server,
    url,
    attach(serve) {
      handle = serve;
      for (const [req, res] of takeHeld()) if (!res.writableEnded && !req.destroyed) serve(req, res);
    },
    async abandon() {
      for (const [req, res] of takeHeld()) {
        const { requestId } = beginRequest(logger, req.method ?? 'GET', pathOf(req), res);
        refuse(res, requestId, { code: HTTP_ERROR_CODES.INTERNAL_ERROR, message: 'svc failed to start; see its log' });
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const pathOf = (req: http.IncomingMessage) => (req.url ?? '/').split('?')[0];

/** /healthz before the app exists: the gate's answer and access line. */
function answerHealth(logger: Logger, req: http.IncomingMessage, res: http.ServerResponse): void {
  answerHealthz(req, res, beginRequest(logger, req.method ?? 'GET', '/healthz', res).requestId);
}
