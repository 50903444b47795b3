import { ValidationError } from '../errors.js';
import type { CollectionSpec, FieldCondition, FilterScalar, ListQuery, Payload, PayloadFilter, SearchQuery, VectorPoint } from '../ports/vector-store.js';

/**
 * Input rules every VectorStore adapter applies before any I/O, so the
 * embedded store, Qdrant and the test fake reject the same inputs alike.
 */

export const RESERVED_PAYLOAD_KEY = '_svc_id';
export const MAX_ID_LENGTH = 256;
export const MAX_DIMENSION = 65536;
export const MAX_POINTS_PER_CALL = 10_000;
export const MAX_IDS_PER_CALL = 10_000;
export const MAX_PAYLOAD_BYTES = 256 * 1024;
export const MAX_LIMIT = 1000;
const MAX_CONDITIONS = 64;
const MAX_ANY_OF = 256;
const MAX_KEY_LENGTH = 256;
const MAX_STRING_SCALAR = 1024;
// Collection names double as file names in the embedded store.
const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function assertCollectionName(name: string): void {
  if (typeof name !== 'string' || !COLLECTION_NAME.test(name)) {
    throw new ValidationError(
      `Invalid collection name: ${JSON.stringify(String(name)).slice(0, 80)} (letters, digits, '_' and '-', at most 64, starting with a letter or digit)`,
    );
  }
}

export function assertSpec(spec: CollectionSpec): void {
  if (!Number.isInteger(spec?.dimension) || spec.dimension < 1 || spec.dimension > MAX_DIMENSION) {
    throw new ValidationError(`Invalid collection dimension: ${String(spec?.dimension)} (an integer from 1 to ${MAX_DIMENSION})`);
  }
  if (spec.distance !== 'cosine') throw new ValidationError(`Unsupported distance: ${String(spec.distance)} (only cosine)`);
}

export function assertId(id: string): void {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
    throw new ValidationError(`Invalid point id: a non-empty string of at most ${MAX_ID_LENGTH} characters is required`);
  }
}

export function assertIds(ids: readonly string[]): void {
  if (!Array.isArray(ids)) throw new ValidationError('Point ids must be an array');
  if (ids.length > MAX_IDS_PER_CALL) throw new ValidationError(`Too many point ids: ${ids.length} (at most ${MAX_IDS_PER_CALL} per call)`);
  ids.forEach(assertId);
}

export function assertVector(vector: readonly number[], what = 'vector'): void {
  if (!Array.isArray(vector) || vector.length === 0 || vector.length > MAX_DIMENSION) {
    throw new ValidationError(`Invalid ${what}: an array of 1 to ${MAX_DIMENSION} numbers is required`);
  }
  for (let i = 0; i < vector.length; i++) {
    const v = vector[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new ValidationError(`Invalid ${what}: element ${i} is not a finite number`);
  }
}

/** A deep JSON copy of the payload, so every adapter stores exactly what JSON can carry. */
export function normalisePayload(payload: Payload): Payload {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new ValidationError('Invalid payload: a JSON object is required');
  }
  if (Object.prototype.hasOwnProperty.call(payload, RESERVED_PAYLOAD_KEY)) {
    throw new ValidationError(`Invalid payload: the key '${RESERVED_PAYLOAD_KEY}' is reserved`);
  }
  let json: string;
  try {
    json = JSON.stringify(payload);
  } catch {
    throw new ValidationError('Invalid payload: it cannot be serialised as JSON');
  }
  if (Buffer.byteLength(json, 'utf8') > MAX_PAYLOAD_BYTES) {
    throw new ValidationError(`Invalid payload: larger than ${MAX_PAYLOAD_BYTES} bytes as JSON`);
  }
  return JSON.parse(json) as Payload;
}

/** Validates a batch and returns it with normalised payloads. */
export function preparePoints(points: readonly VectorPoint[]): VectorPoint[] {
  if (!Array.isArray(points)) throw new ValidationError('Points must be an array');
  if (points.length > MAX_POINTS_PER_CALL) throw new ValidationError(`Too many points: ${points.length} (at most ${MAX_POINTS_PER_CALL} per call)`);
  const seen = new Set<string>();
  return points.map((p) => {
    assertId(p?.id);
    if (seen.has(p.id)) throw new ValidationError(`Duplicate point id in one batch: ${p.id}`);
    seen.add(p.id);
    assertVector(p.vector, `vector of point ${p.id}`);
    return { id: p.id, vector: p.vector, payload: normalisePayload(p.payload) };
  });
}

/** Every vector must have the collection's length. Returns the first wrong length, or undefined. */
export function firstWrongLength(vectors: readonly (readonly number[])[], dimension: number): number | undefined {
  for (const v of vectors) if (v.length !== dimension) return v.length;
  return undefined;
}

function assertLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ValidationError(`Invalid limit: ${String(limit)} (an integer from 1 to ${MAX_LIMIT})`);
  }
}

function isScalar(v: unknown): v is FilterScalar {
  if (typeof v === 'string') return v.length <= MAX_STRING_SCALAR;
  return typeof v === 'boolean' || (typeof v === 'number' && Number.isSafeInteger(v));
}

function assertCondition(c: FieldCondition): void {
  const key = (c as { key?: unknown })?.key;
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH || key.split('.').some((s) => s === '')) {
    throw new ValidationError('Invalid filter: each condition needs a dot-separated payload key');
  }
  // the Qdrant adapter keeps the original id there; filtering on it would behave differently per adapter
  if (key.split('.')[0] === RESERVED_PAYLOAD_KEY) throw new ValidationError(`Invalid filter: the key '${RESERVED_PAYLOAD_KEY}' is reserved`);
  if ('equals' in c) {
    if (!isScalar(c.equals)) throw new ValidationError(`Invalid filter on '${key}': equals takes a string, an integer or a boolean`);
    return;
  }
  if ('anyOf' in c && Array.isArray(c.anyOf)) {
    const values = c.anyOf;
    const allStrings = values.every((v) => typeof v === 'string' && isScalar(v));
    const allIntegers = values.every((v) => typeof v === 'number' && isScalar(v));
    if (values.length === 0 || values.length > MAX_ANY_OF || !(allStrings || allIntegers)) {
      throw new ValidationError(`Invalid filter on '${key}': anyOf takes 1 to ${MAX_ANY_OF} strings or 1 to ${MAX_ANY_OF} integers`);
    }
    return;
  }
  throw new ValidationError(`Invalid filter on '${key}': a condition has either equals or anyOf`);
}

export function assertFilter(filter: PayloadFilter | undefined): void {
  if (filter === undefined) return;
  if (filter === null || typeof filter !== 'object') throw new ValidationError('Invalid filter: an object is required');
  const all = [...(filter.must ?? []), ...(filter.mustNot ?? [])];
  if (all.length > MAX_CONDITIONS) throw new ValidationError(`Invalid filter: at most ${MAX_CONDITIONS} conditions`);
  all.forEach(assertCondition);
}

export function assertSearch(query: SearchQuery): void {
  assertVector(query?.vector, 'query vector');
  assertLimit(query.limit);
  if (query.scoreThreshold !== undefined && !Number.isFinite(query.scoreThreshold)) {
    throw new ValidationError('Invalid scoreThreshold: a finite number is required');
  }
  assertFilter(query.filter);
}

export function assertList(query: ListQuery): void {
  assertLimit(query?.limit);
  if (query.cursor !== undefined && (typeof query.cursor !== 'string' || query.cursor.length === 0 || query.cursor.length > 512)) {
    throw new ValidationError('Invalid cursor: pass the `next` value of the previous page');
  }
  assertFilter(query.filter);
}

function valueAt(payload: Payload, key: string): unknown {
  let current: unknown = payload;
  for (const segment of key.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function holds(payload: Payload, c: FieldCondition): boolean {
  const value = valueAt(payload, c.key);
  if (value === undefined || value === null) return false;
  const candidates = Array.isArray(value) ? value : [value];
  if ('equals' in c) return candidates.some((v) => v === c.equals);
  return candidates.some((v) => c.anyOf.includes(v as FilterScalar));
}

/** The filter semantics of the port (Qdrant's `must` / `must_not` with `match`). */
export function matchesFilter(payload: Payload, filter: PayloadFilter | undefined): boolean {
  if (!filter) return true;
  return (filter.must ?? []).every((c) => holds(payload, c)) && !(filter.mustNot ?? []).some((c) => holds(payload, c));
}
