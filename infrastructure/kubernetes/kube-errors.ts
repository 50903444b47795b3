import { clusterForbidden } from '../../domain/cluster/cluster-refusal.js';
import { DependencyError, DomainError, ExecutionError } from '../../domain/errors.js';
import { scrubText } from '../../domain/security/scrub-credentials.js';

export interface StatusCause {
  field?: string;
  message: string;
  reason?: string;
}

/** A Kubernetes `Status` failure, already scrubbed. */
export interface KubeStatus {
  reason: string;
  message: string;
  causes: StatusCause[];
}

const MAX_MESSAGE = 2000;

/** A non-2xx answer from the API server; internal to the adapter, never leaves it. */
export class KubeStatusError extends Error {
  constructor(
    readonly code: number,
    readonly status: KubeStatus,
  ) {
    super(`${code} ${status.reason}: ${status.message}`);
  }
}

/** Reads a `{kind:'Status'}` body; anything else (an HTML proxy page) becomes a short generic text. */
export function parseStatusBody(body: string, code: number, secrets: readonly (string | undefined)[]): KubeStatus {
  let parsed: Record<string, unknown> | undefined;
  try {
    const value: unknown = JSON.parse(body);
    if (value && typeof value === 'object' && (value as { kind?: unknown }).kind === 'Status') parsed = value as Record<string, unknown>;
  } catch {
    // not JSON: fall through to the generic text
  }
  const clean = (s: unknown) => scrubText(String(s ?? ''), secrets).slice(0, MAX_MESSAGE);
  if (!parsed) return { reason: reasonFor(code), message: `HTTP ${code}`, causes: [] };
  const details = (parsed.details ?? {}) as { causes?: unknown };
  const causes = Array.isArray(details.causes)
    ? details.causes.slice(0, 50).map((c: Record<string, unknown>) => ({
        ...(c.field !== undefined ? { field: clean(c.field) } : {}),
        message: clean(c.message),
        ...(c.reason !== undefined ? { reason: clean(c.reason) } : {}),
      }))
    : [];
  return { reason: clean(parsed.reason) || reasonFor(code), message: clean(parsed.message) || `HTTP ${code}`, causes };
}

function reasonFor(code: number): string {
  const known: Record<number, string> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    409: 'Conflict',
    410: 'Expired',
    415: 'UnsupportedMediaType',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
    504: 'Timeout',
  };
  return known[code] ?? (code >= 500 ? 'InternalError' : 'Unknown');
}

/**
 * Maps a failure of operation `op` (e.g. `apply Deployment default/web`) to the
 * port's contract: credentials refused, throttling and server faults are the
 * dependency's problem; other 4xx are the request's, shown with the server's words.
 * A request made as a caller (`impersonated`) that the server refuses with 403
 * is the caller's refusal: ForbiddenError naming the verb, resource and namespace.
 */
export function toDomainError(e: unknown, op: string, context: string, impersonated = false): DomainError {
  if (e instanceof DomainError) return e;
  if (e instanceof KubeStatusError) {
    const { code, status } = e;
    if (code === 403 && impersonated) return clusterForbidden(status.message, op);
    if (code === 401) {
      return new DependencyError('kubernetes', `Kubernetes API refused the credentials of context "${context}" (401 Unauthorized) during ${op}`);
    }
    if (code === 403 || code === 429 || code >= 500) {
      return new DependencyError('kubernetes', `Kubernetes API failed ${op} (${code} ${status.reason}): ${status.message}`);
    }
    return new ExecutionError(`Kubernetes rejected ${op} (${code} ${status.reason}): ${status.message}`, {
      reason: status.reason,
      code,
      causes: status.causes,
    });
  }
  // Never echo an unknown error's text: it may come from a library that printed a request.
  return new DependencyError('kubernetes', `Kubernetes client failed during ${op}`);
}
