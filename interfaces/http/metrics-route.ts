import type { NextFunction, Request, Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../infrastructure/tokens.js';

/**
 * GET /metrics: the Prometheus text format. Behind the request gate like the
 * API (a bearer token, any role), unless SVC_METRICS_PUBLIC=true opens it.
 */
export function metricsHandler(container: DependencyContainer) {
  const exposition = container.resolve(TOKENS.MetricsExposition);
  return (_req: Request, res: Response, next: NextFunction) => {
    exposition.render().then((body) => {
      res.setHeader('Content-Type', exposition.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.send(body);
    }, next);
  };
}
