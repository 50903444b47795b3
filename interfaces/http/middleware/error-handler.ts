import { ValidateError } from '@tsoa/runtime';
import type { NextFunction, Request, Response } from 'express';
import { DomainError, ERROR_CODES } from '../../../domain/errors.js';
import { HTTP_ERROR_CODES } from '../http-errors.js';
import type { Logger } from '../../../domain/ports/logger.js';
import { failure, type ErrorBody } from '../envelope.js';
import { statusFor } from '../error-status.js';

interface HttpParserError {
  type?: string;
  status?: number;
  limit?: number;
}

/** What express.json's parse failure becomes (also answered by the render fast lane). */
export const NOT_JSON_BODY: ErrorBody = { code: ERROR_CODES.VALIDATION_ERROR, message: 'Request body is not valid JSON' };

/** The error body of any error: a domain error's code and message, a 500 with nothing of the internals otherwise. */
export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof DomainError) {
    return err.details === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, details: err.details };
  }
  if (err instanceof ValidateError) {
    const details = Object.entries(err.fields).map(([field, f]) => ({ field: field.replace(/^[a-z]+\./, ''), message: f.message }));
    return { code: ERROR_CODES.VALIDATION_ERROR, message: `Invalid request: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}`, details };
  }
  const parser = err as HttpParserError;
  if (parser?.type === 'entity.parse.failed') return NOT_JSON_BODY;
  if (parser?.type === 'entity.too.large') {
    return { code: HTTP_ERROR_CODES.PAYLOAD_TOO_LARGE, message: `Request body exceeds the limit of ${parser.limit} bytes` };
  }
  if (parser?.type === 'encoding.unsupported' || parser?.type === 'charset.unsupported') {
    return { code: ERROR_CODES.VALIDATION_ERROR, message: 'Unsupported request body encoding' };
  }
  // the router's decoding of a path parameter such as %C0%AE (not UTF-8): the client's mistake, not ours
  if (err instanceof URIError && parser.status === 400) return { code: ERROR_CODES.VALIDATION_ERROR, message: 'Invalid percent-encoding in the request path' };
  return { code: HTTP_ERROR_CODES.INTERNAL_ERROR, message: 'Internal server error' };
}

/** The one place errors become HTTP responses; a 500 never echoes internals. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const body = toErrorBody(err);
    const status = statusFor(body.code);
    const log = (res.locals.log as Logger | undefined) ?? logger;
    if (body.code === HTTP_ERROR_CODES.INTERNAL_ERROR) {
      log.error('unhandled error', { path: req.path, err: err instanceof Error ? err.stack : String(err) });
    } else if (status >= 500) {
      log.warn('request failed', { path: req.path, code: body.code, error: body.message });
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(status).json(failure(res, body));
  };
}
