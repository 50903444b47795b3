import type { Caller } from '../../domain/auth/caller.js';
import type { Request, Response } from 'express';

import { isoNow } from './middleware/request-context.js';

export const API_VERSION = 'v1';

/** Present on every /api/v1 response, errors included. */
export interface Meta {
  /** ISO 8601 */
  timestamp: string;
  /** Unique per request; also sent as the X-Request-Id header. */
  requestId: string;
  version: string;
}

export interface SuccessEnvelope<T> {
  success: true;
  data: T;
  meta: Meta;
}

export interface ErrorBody {
  code: string;
  message: string;
  details?: unknown;
}

export interface ErrorEnvelope {
  success: false;
  error: ErrorBody;
  meta: Meta;
}

/** The request id set by the request-context middleware. */
export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'unknown';
}

/**
 * The caller the request gate authenticated. Only routes behind the bearer
 * check ask; reaching one without a caller is a wiring bug, not a request to serve.
 */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error('no caller: the route is not behind the request gate');
  return caller;
}

export function meta(res: Response): Meta {
  return { timestamp: isoNow(), requestId: requestIdOf(res), version: API_VERSION };
}

export function ok<T>(req: Request, data: T): SuccessEnvelope<T> {
  return { success: true, data, meta: meta(req.res as Response) };
}

export function failure(res: Response, error: ErrorBody): ErrorEnvelope {
  return { success: false, error, meta: meta(res) };
}

/** A success envelope up to `"meta":`, for answers that add a fresh meta when they are sent. */
export function envelopeHead(data: unknown): Buffer {
  return Buffer.from(`{"success":true,"data":${JSON.stringify(data)},"meta":`);
}
