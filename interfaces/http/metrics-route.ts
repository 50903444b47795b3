import type { NextFunction, Request, Response } from 'express';
import type { AppParts } from '../../infrastructure/composition-root.js';

/**
 * GET /metrics: the Prometheus text format. Behind the request gate like the
 * API (a bearer token, any role), unless SVC_METRICS_PUBLIC=true opens it.
 */
export function metricsHandler(exposition: AppParts['metricsExposition']) {
  return (_req: Request, res: Response, next: NextFunction) => {
    exposition.render().then((body) => {
      res.setHeader('Content-Type', exposition.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.send(body);
    }, next);
  };
}
