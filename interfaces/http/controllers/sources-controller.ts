import type { Request, Response } from 'express';
import type { IngestSource } from '../../../application/ingest-source.js';
import { ok } from '../envelope.js';

export const SOURCES_PATH = '/api/v1/prompts/sources';

/**
 * POST /api/v1/prompts/sources as a plain express handler, not a tsoa
 * controller: the raw-body cap needs this route's own streaming reader ahead of
 * the app-wide JSON parser (tsoa routes only ever see a parsed body), and the
 * route must be registered before tsoa's `POST /api/v1/prompts/{promptName}`,
 * which would otherwise take `sources` as a prompt name. Its OpenAPI entry is
 * in sources-openapi.ts. Errors reach the app's error handler (express 5
 * forwards a rejected promise to `next`).
 */
export function ingestSourceHandler(ingestSource: IngestSource) {
  return async (req: Request, res: Response): Promise<void> => {
    const data = await ingestSource.execute(req.body);
    res.status(200).json(ok(req, data));
  };
}
