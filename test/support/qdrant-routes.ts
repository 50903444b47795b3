import {
  filterHolds,
  formatError,
  idKey,
  parsePointId,
  prepareVector,
  QdrantHttpError,
  score,
  selectPayload,
  type QdrantCollection,
  type StoredRecord,
} from './qdrant-model.js';

type Body = Record<string, unknown>;
export type RouteResult = { raw: unknown } | { result: unknown };

const DISTANCES = ['Cosine', 'Dot', 'Euclid', 'Manhattan'] as const;

function notFound(name: string): QdrantHttpError {
  return new QdrantHttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
}

function limitOf(body: Body, fallback: number): number {
  const limit = body.limit ?? fallback;
  if (!Number.isInteger(limit) || (limit as number) < 0) throw formatError('invalid value for limit: expected usize');
  return limit as number;
}

function sortedRecords(c: QdrantCollection, filter: unknown): StoredRecord[] {
  return [...c.points.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => r)
    .filter((r) => filterHolds(r, filter));
}

function toRecord(r: StoredRecord, body: Body, defaultPayload: boolean): Body {
  const out: Body = { id: r.id };
  const payload = selectPayload(r.payload, body.with_payload ?? defaultPayload);
  if (payload) out.payload = payload;
  if (body.with_vector === true) out.vector = [...r.vector];
  return out;
}

function nearest(c: QdrantCollection, body: Body, rawQuery: unknown, defaultPayload: boolean): Body[] {
  const vector = prepareVector(c, rawQuery, 'query vector');
  const threshold = typeof body.score_threshold === 'number' ? body.score_threshold : -Infinity;
  const offset = (body.offset as number | undefined) ?? 0;
  return [...c.points.values()]
    .filter((r) => filterHolds(r, body.filter))
    .map((r) => ({ r, s: score(c, vector, r.vector) }))
    .filter(({ s }) => s >= threshold)
    .sort((a, b) => b.s - a.s)
    .slice(offset, offset + limitOf(body, 10))
    .map(({ r, s }) => ({ ...toRecord(r, body, defaultPayload), version: 0, score: s }));
}

/** The stored collections and the REST operations on them. */
export class QdrantState {
  readonly collections = new Map<string, QdrantCollection>();
  private operationId = 0;

  private collection(name: string): QdrantCollection {
    const c = this.collections.get(name);
    if (!c) throw notFound(name);
    return c;
  }

  private updated(query: URLSearchParams): RouteResult {
    return { result: { operation_id: ++this.operationId, status: query.get('wait') === 'true' ? 'completed' : 'acknowledged' } };
  }

  listCollections(): RouteResult {
    return { result: { collections: [...this.collections.keys()].map((name) => ({ name })) } };
  }

  exists(name: string): RouteResult {
    return { result: { exists: this.collections.has(name) } };
  }

  info(name: string): RouteResult {
    const c = this.collection(name);
    return {
      result: {
        status: 'green',
        optimizer_status: 'ok',
        indexed_vectors_count: 0,
        points_count: c.points.size,
        segments_count: 1,
        config: {
          params: {
            vectors: { size: c.size, distance: c.distance },
            shard_number: 1,
            replication_factor: 1,
            write_consistency_factor: 1,
            on_disk_payload: true,
          },
          hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false },
          optimizer_config: { deleted_threshold: 0.2, vacuum_min_vector_number: 1000, default_segment_number: 0, flush_interval_sec: 5 },
          wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
          quantization_config: null,
        },
        payload_schema: {},
      },
    };
  }

  create(name: string, body: Body): RouteResult {
    const vectors = body.vectors as Body | undefined;
    if (!vectors || typeof vectors !== 'object') throw formatError('missing field `vectors`');
    if (!Number.isInteger(vectors.size) || (vectors.size as number) < 1) throw formatError('invalid value for vectors.size: expected a positive integer');
    if (!DISTANCES.includes(vectors.distance as never))
      throw formatError(`unknown variant \`${String(vectors.distance)}\`, expected one of \`Cosine\`, \`Euclid\`, \`Dot\`, \`Manhattan\``);
    if (this.collections.has(name)) throw new QdrantHttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
    this.collections.set(name, { size: vectors.size as number, distance: vectors.distance as QdrantCollection['distance'], points: new Map() });
    return { result: true };
  }

  drop(name: string): RouteResult {
    return { result: this.collections.delete(name) };
  }

  upsert(name: string, body: Body, query: URLSearchParams): RouteResult {
    const c = this.collection(name);
    if (!Array.isArray(body.points)) throw formatError('data did not match any variant of untagged enum PointInsertOperations');
    // validate the whole batch first: Qdrant rejects a bad request without applying part of it
    const records = (body.points as Body[]).map((p) => ({
      id: parsePointId(p.id),
      vector: prepareVector(c, p.vector, 'vector'),
      payload: (p.payload ?? {}) as Record<string, unknown>,
    }));
    for (const r of records) c.points.set(idKey(r.id), structuredClone(r));
    return this.updated(query);
  }

  retrieve(name: string, body: Body): RouteResult {
    const c = this.collection(name);
    if (!Array.isArray(body.ids)) throw formatError('missing field `ids`');
    const keys = new Set((body.ids as unknown[]).map((id) => idKey(parsePointId(id))));
    // answered in storage order, not request order: callers must not rely on it
    const found = [...keys]
      .sort()
      .map((k) => c.points.get(k))
      .filter((r): r is StoredRecord => r !== undefined);
    return { result: found.map((r) => toRecord(r, body, true)) };
  }

  deletePoints(name: string, body: Body, query: URLSearchParams): RouteResult {
    const c = this.collection(name);
    if (Array.isArray(body.points)) {
      for (const id of body.points) c.points.delete(idKey(parsePointId(id)));
    } else if (body.filter) {
      for (const [k, r] of [...c.points]) if (filterHolds(r, body.filter)) c.points.delete(k);
    } else {
      throw formatError('data did not match any variant of untagged enum PointsSelector');
    }
    return this.updated(query);
  }

  search(name: string, body: Body): RouteResult {
    const c = this.collection(name);
    return { result: nearest(c, body, body.vector, false) };
  }

  query(name: string, body: Body): RouteResult {
    const c = this.collection(name);
    const q = body.query as unknown;
    if (q === undefined || q === null) {
      const offset = (body.offset as number | undefined) ?? 0;
      const points = sortedRecords(c, body.filter).slice(offset, offset + limitOf(body, 10));
      return { result: { points: points.map((r) => ({ ...toRecord(r, body, false), version: 0, score: 0 })) } };
    }
    const vector = Array.isArray(q) ? q : (q as Body).nearest;
    if (!Array.isArray(vector)) throw formatError('data did not match any variant of untagged enum QueryInterface');
    return { result: { points: nearest(c, body, vector, false) } };
  }

  scroll(name: string, body: Body): RouteResult {
    const c = this.collection(name);
    const limit = limitOf(body, 10);
    const start = body.offset === undefined || body.offset === null ? undefined : idKey(parsePointId(body.offset));
    const records = sortedRecords(c, body.filter).filter((r) => start === undefined || idKey(r.id) >= start);
    const page = records.slice(0, limit);
    return { result: { points: page.map((r) => toRecord(r, body, true)), next_page_offset: records[limit]?.id ?? null } };
  }

  count(name: string, body: Body): RouteResult {
    const c = this.collection(name);
    return { result: { count: sortedRecords(c, body.filter).length } };
  }
}
