import type { AddressInfo } from 'node:net';
import http from 'node:http';
import type { AppParts } from '../../infrastructure/composition-root.js';
import { createApp } from './app.js';
import { fastAnswers } from './fast-answers.js';
import { afterGate, gateOf, type GateContext } from './request-gate.js';

export interface RunningServer {
  server: http.Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (bounded), flushes telemetry. */
  close(): Promise<void>;
}

/**
 * The most bytes of request headers node reads (its default is 16 KiB): room
 * for an Authorization header past the longest token svc reads, so an
 * oversized token is the gate's 401 (refused unread) rather than node's 431;
 * past this the parser still answers 431, so a connection's headers stay
 * bounded.
 */
export const MAX_HEADER_BYTES = 32 * 1024;

/** Starts the HTTP server of one composition (the parts the root built) on the configured host and port. */
export async function startServer(parts: AppParts): Promise<RunningServer> {
  const { config, logger } = parts;
  const gate = gateOf(parts);
  const app = createApp(parts, gate);
  const fast = fastAnswers(parts);
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnections } = config.server;
  // node checks the header and request timeouts on this interval: keep it well under the shortest
  const connectionsCheckingInterval = Math.max(50, Math.min(30_000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 4)));
  const route = (req: http.IncomingMessage, res: http.ServerResponse, context: GateContext) => {
    if (!fast(req, res, context, app)) app(req, res);
  };
  const server = http.createServer({ connectionsCheckingInterval, maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    const passed = gate(req, res);
    // usually known at once; a promise when rate-limit counters live in Redis
    if (passed instanceof Promise) afterGate(passed, res, (context) => route(req, res, context));
    else if (passed) route(req, res, passed);
  });
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

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), config.server.shutdownGraceMs);
      await drained;
      clearTimeout(timer);
      await parts.tracer.shutdown();
      for (const closer of parts.onShutdown) await closer().catch(() => undefined);
      logger.info('svc stopped');
    })());
  return { server, url, close };
}
