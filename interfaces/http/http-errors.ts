import { DomainError } from '../../domain/errors.js';

/** Codes only the HTTP transport raises (the domain's own are ERROR_CODES in domain/errors.ts). */
export const HTTP_ERROR_CODES = {
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  RATE_LIMITED: 'RATE_LIMITED',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
} as const;

/** An error of the transport itself, mapped to its status by the same table as domain errors. */
export class HttpError extends DomainError {
  constructor(code: (typeof HTTP_ERROR_CODES)[keyof typeof HTTP_ERROR_CODES], message: string) {
    super(code, message);
  }
}

/** Missing or wrong bearer token (401 UNAUTHORIZED). */
export class UnauthorizedError extends HttpError {
  constructor(message = 'Missing or invalid bearer token') {
    super(HTTP_ERROR_CODES.UNAUTHORIZED, message);
  }
}

/** A request body over a size limit (413 PAYLOAD_TOO_LARGE). */
export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(HTTP_ERROR_CODES.PAYLOAD_TOO_LARGE, message);
  }
}
