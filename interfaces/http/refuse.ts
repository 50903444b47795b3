import type { ServerResponse } from 'node:http';
import { API_VERSION, type ErrorBody } from './envelope.js';
import { statusFor } from './error-status.js';
import { isoNow } from './middleware/request-context.js';

/** The error envelope, as the express error handler writes it. */
export function refuse(res: ServerResponse, requestId: string, error: ErrorBody): void {
  const body = Buffer.from(JSON.stringify({ success: false, error, meta: { timestamp: isoNow(), requestId, version: API_VERSION } }));
  res.writeHead(statusFor(error.code), { 'X-Request-Id': requestId, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
}
