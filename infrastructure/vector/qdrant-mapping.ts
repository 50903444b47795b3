import { createHash } from 'node:crypto';
import { DependencyError, DomainError, ValidationError } from '../../domain/errors.js';
import type { FieldCondition, Payload, PayloadFilter } from '../../domain/ports/vector-store.js';
import { scrubText, scrubUrl } from '../../domain/security/scrub-credentials.js';
import { RESERVED_PAYLOAD_KEY } from '../../domain/vector/vector-rules.js';
import { CollectionNotFoundError, VectorDimensionError } from '../../domain/vector/vector-errors.js';

/** Translation between the port's types and Qdrant's REST types, and Qdrant failures -> domain errors. */

// Fixed namespace for svc point ids (a random v4 UUID chosen once; changing it orphans stored points).
const NAMESPACE = Buffer.from('6f1c2a7e8b9d4c3fa1e05d7b2c9e4f10', 'hex');

/**
 * Qdrant accepts only unsigned integers and UUIDs as point ids, so a string id
 * maps to a name-based (version 5) UUID; the original id travels in the payload.
 */
export function toPointId(id: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(id, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function assertCursor(cursor: string | undefined): void {
  if (cursor !== undefined && !UUID.test(cursor)) throw new ValidationError('Invalid cursor: pass the `next` value of the previous page');
}

export function toQdrantPayload(id: string, payload: Payload): Payload {
  return { ...payload, [RESERVED_PAYLOAD_KEY]: id };
}

/** The port's view of a stored point: the original id and the payload without the reserved key. */
export function fromQdrantPoint(point: { id: string | number; payload?: Record<string, unknown> | null }): { id: string; payload: Payload } {
  const { [RESERVED_PAYLOAD_KEY]: original, ...payload } = point.payload ?? {};
  return { id: typeof original === 'string' ? original : String(point.id), payload };
}

function toCondition(c: FieldCondition): Record<string, unknown> {
  return 'equals' in c ? { key: c.key, match: { value: c.equals } } : { key: c.key, match: { any: [...c.anyOf] } };
}

export function toQdrantFilter(filter: PayloadFilter | undefined): Record<string, unknown> | undefined {
  if (!filter || ((filter.must ?? []).length === 0 && (filter.mustNot ?? []).length === 0)) return undefined;
  const out: Record<string, unknown> = {};
  if (filter.must?.length) out.must = filter.must.map(toCondition);
  if (filter.mustNot?.length) out.must_not = filter.mustNot.map(toCondition);
  return out;
}

interface HttpFailure {
  status: number;
  data?: unknown;
}

/** The client throws its openapi-fetch ApiError (status + parsed body) for non-2xx answers. */
export function httpStatusOf(e: unknown): number | undefined {
  const status = (e as Partial<HttpFailure> | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

function qdrantMessage(e: unknown): string {
  const data = (e as HttpFailure).data as { status?: { error?: unknown } } | string | undefined;
  if (typeof data === 'string') return data.slice(0, 500);
  const error = data?.status?.error;
  return typeof error === 'string' ? error.slice(0, 500) : (e as Error).message;
}

function networkCode(e: unknown): string | undefined {
  const cause = (e as { cause?: { code?: unknown; errors?: { code?: unknown }[] } } | null)?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' ? code : undefined;
}

export interface FailureContext {
  url: string;
  apiKey?: string;
  timeoutMs: number;
  operation: string;
  collection?: string;
}

/** Any failure of a Qdrant call as a domain error whose message names no credential. */
export function toDomainError(e: unknown, ctx: FailureContext): DomainError {
  if (e instanceof DomainError) return e;
  const where = scrubUrl(ctx.url);
  const scrub = (s: string) => scrubText(s, [ctx.apiKey]);
  const status = httpStatusOf(e);
  if (status !== undefined) {
    const message = qdrantMessage(e);
    const dims = /dimension error: expected dim: (\d+), got (\d+)/i.exec(message);
    if (status === 400 && dims && ctx.collection) return new VectorDimensionError(ctx.collection, Number(dims[1]), Number(dims[2]));
    if (status === 404 && ctx.collection && /collection/i.test(message)) return new CollectionNotFoundError(ctx.collection);
    if (status === 401 || status === 403) {
      return new DependencyError('vector-db', `Qdrant at ${where} refused ${ctx.operation} (${status}): ${scrub(message)}; check QDRANT_API_KEY`);
    }
    return new DependencyError('vector-db', `Qdrant ${ctx.operation} failed (${status}): ${scrub(message)}`);
  }
  const name = (e as Error | null)?.name;
  if (name === 'QdrantClientTimeoutError') {
    return new DependencyError('vector-db', `Qdrant at ${where} did not answer ${ctx.operation} within ${ctx.timeoutMs} ms`);
  }
  if (name === 'QdrantClientResourceExhaustedError') {
    return new DependencyError('vector-db', `Qdrant at ${where} is overloaded (429) during ${ctx.operation}; retry later`);
  }
  if (name === 'QdrantClientUnexpectedResponseError') {
    return new DependencyError('vector-db', `Qdrant at ${where} answered ${ctx.operation} unexpectedly: ${scrub((e as Error).message.split('\n')[0])}`);
  }
  const code = networkCode(e);
  const detail = code ?? scrub((e as Error | null)?.message ?? String(e));
  return new DependencyError('vector-db', `Qdrant at ${where} is unreachable during ${ctx.operation}: ${detail}`);
}
