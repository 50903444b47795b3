import http from 'node:http';
import type { AppParts } from '../../infrastructure/composition-root.js';
import { createApp } from './app.js';
import { afterPendingIo, openServer, type StartingServer } from './early-server.js';
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
  return running(starting, parts);
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

/**
 * The server once the app is attached. `close`: stop taking connections (the
 * ones already queued are taken and read first, see stopAccepting), end the
 * idle ones, let the requests in progress finish (those held during the start
 * included) for up to SVC_SHUTDOWN_GRACE_MS, then flush telemetry.
 */
function running(starting: StartingServer, parts: AppParts): RunningServer {
  const { server, url } = starting;
  const { config, logger } = parts;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await starting.stopAccepting();
      // the requests just handed over are under way by now: what is idle is a connection with no request in it
      await afterPendingIo();
      server.close();
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), config.server.shutdownGraceMs);
      await starting.drained;
      clearTimeout(timer);
      await parts.tracer.shutdown();
      for (const closer of parts.onShutdown) await closer().catch(() => undefined);
      logger.info('svc stopped');
    })());
  return { server, url, close };
}
