import http from 'node:http';
import type { AppParts } from '../../infrastructure/composition-root.js';
import { createApp } from './app.js';
import { openServer, type StartingServer } from './early-server.js';
import { fastAnswers } from './fast-answers.js';
import { afterGate, gateOf, type GateContext } from './request-gate.js';

export interface RunningServer {
  server: http.Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (bounded), flushes telemetry. */
  close(): Promise<void>;
}

export { MAX_HEADER_BYTES } from './early-server.js';

/** Starts the HTTP server of one composition (the parts the root built) on the configured host and port. */
export async function startServer(parts: AppParts): Promise<RunningServer> {
  return attachApp(await openServer(parts.config, parts.logger), parts);
}

/** Hands a listening server's requests (those it held first) to the app of `parts`. */
export function attachApp(starting: StartingServer, parts: AppParts): RunningServer {
  starting.attach(appHandler(parts));
  return running(starting.server, starting.url, parts);
}

/** The request handler of one composition: the gate, then the fast answers or the express app. */
function appHandler(parts: AppParts): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const gate = gateOf(parts);
  const app = createApp(parts, gate);
  const fast = fastAnswers(parts);
  const route = (req: http.IncomingMessage, res: http.ServerResponse, context: GateContext) => {
    if (!fast(req, res, context, app)) app(req, res);
  };
  return (req, res) => {
    const passed = gate(req, res);
    // usually known at once; a promise when rate-limit counters live in Redis
    if (passed instanceof Promise) afterGate(passed, res, (context) => route(req, res, context));
    else if (passed) route(req, res, passed);
  };
}

function running(server: http.Server, url: string, parts: AppParts): RunningServer {
  const { config, logger } = parts;
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
