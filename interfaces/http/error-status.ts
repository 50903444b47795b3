import { ERROR_CODES } from '../../domain/errors.js';
import { HTTP_ERROR_CODES } from './http-errors.js';

/** Error code -> HTTP status: the one table the transport uses. */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  [ERROR_CODES.VALIDATION_ERROR]: 400,
  [HTTP_ERROR_CODES.UNAUTHORIZED]: 401,
  [HTTP_ERROR_CODES.FORBIDDEN]: 403,
  [ERROR_CODES.NOT_FOUND]: 404,
  [ERROR_CODES.TOOL_NOT_FOUND]: 404,
  [ERROR_CODES.PROMPT_NOT_FOUND]: 404,
  [HTTP_ERROR_CODES.METHOD_NOT_ALLOWED]: 405,
  [HTTP_ERROR_CODES.PAYLOAD_TOO_LARGE]: 413,
  [HTTP_ERROR_CODES.RATE_LIMITED]: 429,
  [ERROR_CODES.EXECUTION_ERROR]: 500,
  [ERROR_CODES.DEPENDENCY_ERROR]: 502,
  [ERROR_CODES.PROMPTS_SOURCE_ERROR]: 502,
  [HTTP_ERROR_CODES.INTERNAL_ERROR]: 500,
};

export function statusFor(code: string): number {
  return ERROR_STATUS[code] ?? 500;
}
