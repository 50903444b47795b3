/** Domain error code -> HTTP status: the one table the transport uses. */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  TOOL_NOT_FOUND: 404,
  PROMPT_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  EXECUTION_ERROR: 500,
  DEPENDENCY_ERROR: 502,
  PROMPTS_SOURCE_ERROR: 502,
  INTERNAL_ERROR: 500,
};

export function statusFor(code: string): number {
  return ERROR_STATUS[code] ?? 500;
}
