import type { NextFunction, Request, Response } from 'express';
import type { Tracer } from '../../../domain/ports/tracer.js';

/**
 * Honours a caller's W3C `traceparent`/`tracestate`: the rest of the request
 * (the tool span and everything under it) joins the caller's trace. Mounted
 * after body parsing because the body stream's events do not carry the
 * context along; from here on the request runs as one promise chain, which does.
 */
export function traceContext(tracer: Tracer) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const traceparent = req.header('traceparent');
    if (!traceparent) return next();
    return tracer.withRemoteParent({ traceparent, tracestate: req.header('tracestate') }, async () => next());
  };
}
