import { DependencyError } from '../../domain/errors.js';
import type {
  CollectionInfo,
  CollectionSpec,
  ListPage,
  ListQuery,
  PayloadFilter,
  ScoredPoint,
  SearchQuery,
  StoredPoint,
  VectorPoint,
  VectorStore,
  VectorStoreHealth,
} from '../../domain/ports/vector-store.js';
import { CollectionNotFoundError, VectorDimensionError } from '../../domain/vector/vector-errors.js';
import {
  assertCollectionName,
  assertFilter,
  assertIds,
  assertList,
  assertSearch,
  assertSpec,
  firstWrongLength,
  matchesFilter,
  preparePoints,
} from '../../domain/vector/vector-rules.js';

interface FakeCollection {
  spec: CollectionSpec;
  points: Map<string, { vector: number[]; payload: Record<string, unknown> }>;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * In-memory VectorStore for unit tests: plain maps and loops, no persistence.
 * `failWith` makes every call throw (an unreachable store); `health()` then reports it.
 */
export class FakeVectorStore implements VectorStore {
  readonly collections = new Map<string, FakeCollection>();
  failWith?: Error;

  private guard(): void {
    if (this.failWith) throw this.failWith;
  }

  async health(): Promise<VectorStoreHealth> {
    return this.failWith ? { connected: false, provider: 'fake', error: this.failWith.message } : { connected: true, provider: 'fake' };
  }

  async listCollections(): Promise<string[]> {
    this.guard();
    return [...this.collections.keys()].sort();
  }

  async collectionExists(collection: string): Promise<boolean> {
    assertCollectionName(collection);
    this.guard();
    return this.collections.has(collection);
  }

  async describeCollection(collection: string): Promise<CollectionInfo | undefined> {
    assertCollectionName(collection);
    this.guard();
    const c = this.collections.get(collection);
    return c && { name: collection, ...c.spec, count: c.points.size };
  }

  async ensureCollection(collection: string, spec: CollectionSpec): Promise<void> {
    assertCollectionName(collection);
    assertSpec(spec);
    this.guard();
    const c = this.collections.get(collection);
    if (!c) {
      this.collections.set(collection, { spec: { dimension: spec.dimension, distance: spec.distance }, points: new Map() });
    } else if (c.spec.dimension !== spec.dimension) {
      throw new VectorDimensionError(collection, c.spec.dimension, spec.dimension);
    }
  }

  async deleteCollection(collection: string): Promise<void> {
    assertCollectionName(collection);
    this.guard();
    this.collections.delete(collection);
  }

  async upsert(collection: string, points: readonly VectorPoint[]): Promise<void> {
    assertCollectionName(collection);
    const prepared = preparePoints(points);
    this.guard();
    const c = this.collections.get(collection);
    if (!c) throw new CollectionNotFoundError(collection);
    const wrong = firstWrongLength(
      prepared.map((p) => p.vector),
      c.spec.dimension,
    );
    if (wrong !== undefined) throw new VectorDimensionError(collection, c.spec.dimension, wrong);
    for (const p of prepared) c.points.set(p.id, { vector: [...p.vector], payload: p.payload });
  }

  async search(collection: string, query: SearchQuery): Promise<ScoredPoint[]> {
    assertCollectionName(collection);
    assertSearch(query);
    this.guard();
    const c = this.collections.get(collection);
    if (!c) return [];
    if (query.vector.length !== c.spec.dimension) throw new VectorDimensionError(collection, c.spec.dimension, query.vector.length);
    const hits: ScoredPoint[] = [];
    for (const [id, p] of c.points) {
      if (!matchesFilter(p.payload, query.filter)) continue;
      const score = cosine(query.vector, p.vector);
      if (query.scoreThreshold === undefined || score >= query.scoreThreshold) hits.push({ id, score, payload: structuredClone(p.payload) });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, query.limit);
  }

  async get(collection: string, ids: readonly string[]): Promise<StoredPoint[]> {
    assertCollectionName(collection);
    assertIds(ids);
    this.guard();
    const c = this.collections.get(collection);
    const out: StoredPoint[] = [];
    for (const id of new Set(ids)) {
      const p = c?.points.get(id);
      if (p) out.push({ id, payload: structuredClone(p.payload) });
    }
    return out;
  }

  async delete(collection: string, ids: readonly string[]): Promise<void> {
    assertCollectionName(collection);
    assertIds(ids);
    this.guard();
    const c = this.collections.get(collection);
    for (const id of ids) c?.points.delete(id);
  }

  async count(collection: string, filter?: PayloadFilter): Promise<number> {
    assertCollectionName(collection);
    assertFilter(filter);
    this.guard();
    const c = this.collections.get(collection);
    if (!c) return 0;
    return [...c.points.values()].filter((p) => matchesFilter(p.payload, filter)).length;
  }

  async list(collection: string, query: ListQuery): Promise<ListPage> {
    assertCollectionName(collection);
    assertList(query);
    this.guard();
    const c = this.collections.get(collection);
    if (!c) return { points: [] };
    const ids = [...c.points.keys()]
      .filter((id) => (query.cursor === undefined || id >= query.cursor) && matchesFilter(c.points.get(id)!.payload, query.filter))
      .sort();
    const page = ids.slice(0, query.limit).map((id) => ({ id, payload: structuredClone(c.points.get(id)!.payload) }));
    return ids.length > query.limit ? { points: page, next: ids[query.limit] } : { points: page };
  }
}

/** An error like the one a real adapter throws for an unreachable store. */
export function unreachable(): DependencyError {
  return new DependencyError('vector-db', 'vector database is unreachable');
}
