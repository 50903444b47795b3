import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { ERROR_CODES, NotFoundError } from '../../domain/errors.js';
import { HTTP_ERROR_CODES, HttpError } from './http-errors.js';
import type { AppParts } from '../../infrastructure/composition-root.js';
import { MAX_UPLOAD_RAW_BYTES } from '../../domain/uploads/upload-limits.js';
import { mountMcp } from '../mcp/mount-mcp.js';
import { ingestSourceHandler, SOURCES_PATH } from './controllers/sources-controller.js';
import { docsRouter, DOCS_PATH } from './docs-page.js';
import { RegisterRoutes } from './generated/routes.js';
import { gateMiddleware, gateOf, METRICS_PATH, type Gate } from './request-gate.js';
import { errorHandler } from './middleware/error-handler.js';
import { traceContext } from './middleware/trace-context.js';
import { uploadBody } from './middleware/upload-body.js';
import { runEventsHandler, RUN_EVENTS_PATH } from './run-events-route.js';
import { metricsHandler } from './metrics-route.js';

/** JSON bodies above this are refused (413) before parsing; evidence (20000 chars) fits easily. */
const JSON_BODY_LIMIT = '1mb';

function methodNotAllowed(req: Request, res: Response, next: NextFunction) {
  res.setHeader('Allow', 'POST');
  next(new HttpError(HTTP_ERROR_CODES.METHOD_NOT_ALLOWED, `Method ${req.method} is not allowed on tool endpoints; use POST`));
}

/**
 * The express app of one composition (the parts the root built): middleware,
 * tsoa routes, fallbacks, the error handler. `gate` is the request gate the
 * node:http server in front already runs (startServer passes its own, so
 * there is one per server). Only tsoa's controller factory (ioc.ts) reads
 * the container, from `app.locals`.
 */
export function createApp(parts: AppParts, gate: Gate = gateOf(parts)): Express {
  const { logger } = parts;
  const app = express();
  app.locals.container = parts.controllers;
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('query parser', 'simple');

  // The one request gate (id, access line, /healthz, Host check, bearer); behind the node:http server it already ran.
  app.use(gateMiddleware(gate));
  // Uploads read their own body (raw cap while streaming), so this route comes before the JSON parser and tsoa's {promptName}.
  app.post(SOURCES_PATH, uploadBody(MAX_UPLOAD_RAW_BYTES), ingestSourceHandler(parts.prompts.ingest));
  app.use(express.json({ limit: JSON_BODY_LIMIT, strict: true }));
  app.use(traceContext(parts.tracer));

  // a stream, not an envelope: its own route, ahead of the generated ones
  app.get(RUN_EVENTS_PATH, runEventsHandler(parts.watchRun, parts.config.runs.heartbeatMs));
  app.get(METRICS_PATH, metricsHandler(parts.metricsExposition));
  RegisterRoutes(app);
  mountMcp(app, parts, gate);
  app.use(DOCS_PATH, docsRouter());
  // a person who opens the server's address gets the API page, not a JSON 404
  app.get('/', (_req: Request, res: Response) => res.redirect(302, DOCS_PATH));

  app.all('/api/v1/tools/:toolName', methodNotAllowed);
  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new NotFoundError(ERROR_CODES.NOT_FOUND, `No route for ${req.method} ${req.path}`));
  });
  app.use(errorHandler(logger));
  return app;
}
