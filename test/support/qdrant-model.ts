/**
 * Collection semantics of a single-node Qdrant as its REST API reference
 * describes them: point ids are unsigned integers or UUIDs (returned in
 * canonical hyphenated lower case), Cosine collections store unit-length
 * vectors and score by dot product in float32, filters use must / should /
 * must_not with `match` (value, any, except) and `range` conditions.
 * Written independently of the adapter under test.
 */

export type PointId = number | string;

export class QdrantHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface StoredRecord {
  id: PointId;
  vector: number[];
  payload: Record<string, unknown>;
}

export interface QdrantCollection {
  size: number;
  distance: 'Cosine' | 'Dot' | 'Euclid' | 'Manhattan';
  points: Map<string, StoredRecord>;
}

const UUID = /^(?:urn:uuid:)?\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

export function formatError(message: string): QdrantHttpError {
  return new QdrantHttpError(400, `Format error in JSON body: ${message}`);
}

/** Parses an ExtendedPointId; throws Qdrant's 400 for anything else. */
export function parsePointId(raw: unknown): PointId {
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return raw;
  if (typeof raw === 'string') {
    const m = UUID.exec(raw);
    if (m) return m.slice(1, 6).join('-').toLowerCase();
  }
  throw formatError(
    `value ${typeof raw === 'string' ? raw : JSON.stringify(raw)} is not a valid point ID, valid values are either an unsigned integer or a UUID`,
  );
}

/** Map key and sort key: integers sort before UUIDs, each in natural order. */
export function idKey(id: PointId): string {
  return typeof id === 'number' ? `0:${id.toString().padStart(20, '0')}` : `1:${id}`;
}

export function prepareVector(c: QdrantCollection, raw: unknown, what: string): number[] {
  if (!Array.isArray(raw) || raw.some((v) => typeof v !== 'number')) throw formatError(`invalid type for ${what}: expected a sequence of floats`);
  if (raw.length !== c.size) {
    throw new QdrantHttpError(400, `Wrong input: Vector dimension error: expected dim: ${c.size}, got ${raw.length}`);
  }
  const v = raw.map((x) => Math.fround(x as number));
  if (c.distance !== 'Cosine') return v;
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm === 0 ? v : v.map((x) => Math.fround(x / norm));
}

export function score(c: QdrantCollection, query: number[], stored: number[]): number {
  let dot = 0;
  for (let i = 0; i < query.length; i++) dot = Math.fround(dot + Math.fround(query[i] * stored[i]));
  return dot;
}

function valuesAt(payload: unknown, key: string): unknown[] {
  let current: unknown[] = [payload];
  for (const part of key.split('.')) {
    const isArrayStep = part.endsWith('[]');
    const name = isArrayStep ? part.slice(0, -2) : part;
    const next: unknown[] = [];
    for (const c of current) {
      if (c === null || typeof c !== 'object' || Array.isArray(c)) continue;
      const v = (c as Record<string, unknown>)[name];
      if (v === undefined) continue;
      if (isArrayStep && Array.isArray(v)) next.push(...v);
      else next.push(v);
    }
    current = next;
  }
  // a payload array is matched element-wise
  return current.flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v) => v !== null);
}

function conditionHolds(record: StoredRecord, condition: Record<string, unknown>): boolean {
  if ('must' in condition || 'should' in condition || 'must_not' in condition) return filterHolds(record, condition);
  if (Array.isArray(condition.has_id)) return condition.has_id.some((id) => idKey(parsePointId(id)) === idKey(record.id));
  if (typeof condition.key !== 'string') throw formatError('data did not match any variant of untagged enum Condition');
  const values = valuesAt(record.payload, condition.key);
  const match = condition.match as Record<string, unknown> | undefined;
  if (match && 'value' in match) return values.some((v) => v === match.value);
  if (match && Array.isArray(match.any)) return values.some((v) => (match.any as unknown[]).includes(v));
  if (match && Array.isArray(match.except)) return values.length > 0 && values.every((v) => !(match.except as unknown[]).includes(v));
  const range = condition.range as Record<string, number | undefined> | undefined;
  if (range) {
    return values.some(
      (v) =>
        typeof v === 'number' &&
        (range.gt === undefined || v > range.gt) &&
        (range.gte === undefined || v >= range.gte) &&
        (range.lt === undefined || v < range.lt) &&
        (range.lte === undefined || v <= range.lte),
    );
  }
  throw formatError('data did not match any variant of untagged enum Condition');
}

function asList(v: unknown): Record<string, unknown>[] {
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]) as Record<string, unknown>[];
}

export function filterHolds(record: StoredRecord, filter: unknown): boolean {
  if (filter === undefined || filter === null) return true;
  if (typeof filter !== 'object') throw formatError('invalid type: expected struct Filter');
  const f = filter as Record<string, unknown>;
  const must = asList(f.must);
  const should = asList(f.should);
  const mustNot = asList(f.must_not);
  return (
    must.every((c) => conditionHolds(record, c)) &&
    (should.length === 0 || should.some((c) => conditionHolds(record, c))) &&
    !mustNot.some((c) => conditionHolds(record, c))
  );
}

/** with_payload: true / false / list of keys / {include} / {exclude}. */
export function selectPayload(payload: Record<string, unknown>, selector: unknown): Record<string, unknown> | undefined {
  if (selector === undefined || selector === null || selector === false) return undefined;
  if (selector === true) return structuredClone(payload);
  const pick = (keys: string[], keep: boolean) => Object.fromEntries(Object.entries(payload).filter(([k]) => keys.includes(k) === keep));
  if (Array.isArray(selector)) return pick(selector as string[], true);
  const s = selector as { include?: string[]; exclude?: string[] };
  if (s.include) return pick(s.include, true);
  if (s.exclude) return pick(s.exclude, false);
  throw formatError('data did not match any variant of untagged enum WithPayloadInterface');
}
