import type { QdrantClient } from '@qdrant/js-client-rest';
import { ExecutionError } from '../../domain/errors.js';
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
  preparePoints,
} from '../../domain/vector/vector-rules.js';
import { assertCursor, fromQdrantPoint, httpStatusOf, toDomainError, toPointId, toQdrantFilter, toQdrantPayload } from './qdrant-mapping.js';

export interface QdrantVectorStoreOptions {
  /** QDRANT_URL: http(s) URL, optionally with a path prefix. */
  url: string;
  /** QDRANT_API_KEY, sent as the `api-key` header. */
  apiKey?: string;
  /** Per request; default 30 s. */
  timeoutMs?: number;
  /** Points per upsert request; default 256 (well under Qdrant's 32 MiB request limit at 1536 dimensions). */
  upsertBatch?: number;
}

/** VectorStore on a Qdrant server through its REST API (@qdrant/js-client-rest). */
export class QdrantVectorStore implements VectorStore {
  private readonly timeoutMs: number;
  private readonly batch: number;
  private readonly clientOptions: ConstructorParameters<typeof QdrantClient>[0];
  private restClient: QdrantClient | undefined;

  constructor(private readonly options: QdrantVectorStoreOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.batch = options.upsertBatch ?? 256;
    const parsed = new URL(options.url);
    const prefix = parsed.pathname.replace(/\/+$/, '');
    this.clientOptions = {
      url: parsed.origin,
      ...(prefix ? { prefix } : {}),
      port: parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 6333,
      // as a header rather than `apiKey`, so the client neither warns on stdout nor switches scheme
      headers: options.apiKey ? { 'api-key': options.apiKey } : {},
      timeout: this.timeoutMs,
      // health() asks for the version itself; the built-in check would log to the console
      checkCompatibility: false,
    };
  }

  /** The REST client, made on the first request: the client and its HTTP library (undici) load then, not at start. */
  private get client(): QdrantClient {
    if (this.restClient) return this.restClient;
    const { QdrantClient } = require('@qdrant/js-client-rest') as typeof import('@qdrant/js-client-rest');
    return (this.restClient = new QdrantClient(this.clientOptions));
  }

  private async call<T>(operation: string, collection: string | undefined, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw toDomainError(e, { url: this.options.url, apiKey: this.options.apiKey, timeoutMs: this.timeoutMs, operation, collection });
    }
  }

  /** Runs a read; an absent collection (404) yields `absent`. */
  private async read<T>(operation: string, collection: string, fn: () => Promise<T>, absent: T): Promise<T> {
    return this.call(operation, collection, async () => {
      try {
        return await fn();
      } catch (e) {
        if (httpStatusOf(e) === 404) return absent;
        throw e;
      }
    });
  }

  async health(): Promise<VectorStoreHealth> {
    try {
      const info = await this.call('version', undefined, () => this.client.versionInfo());
      return { connected: true, provider: 'qdrant', version: info.version };
    } catch (e) {
      return { connected: false, provider: 'qdrant', error: (e as Error).message };
    }
  }

  async listCollections(): Promise<string[]> {
    const result = await this.call('list collections', undefined, () => this.client.getCollections());
    return result.collections.map((c) => c.name).sort();
  }

  async collectionExists(collection: string): Promise<boolean> {
    assertCollectionName(collection);
    const result = await this.call('collection exists', collection, () => this.client.collectionExists(collection));
    return result.exists;
  }

  async describeCollection(collection: string): Promise<CollectionInfo | undefined> {
    assertCollectionName(collection);
    const info = await this.read('get collection', collection, () => this.client.getCollection(collection), undefined);
    if (!info) return undefined;
    const vectors = info.config.params.vectors as { size?: unknown; distance?: unknown } | undefined;
    if (!vectors || typeof vectors.size !== 'number') {
      throw new ExecutionError(`Qdrant collection '${collection}' uses named vectors, which svc does not use; delete it or point svc at another Qdrant`);
    }
    if (vectors.distance !== 'Cosine') {
      throw new ExecutionError(
        `Qdrant collection '${collection}' uses ${String(vectors.distance)} distance, svc needs Cosine; delete the collection and re-index it`,
      );
    }
    const { count } = await this.call('count', collection, () => this.client.count(collection, { exact: true }));
    return { name: collection, dimension: vectors.size, distance: 'cosine', count };
  }

  async ensureCollection(collection: string, spec: CollectionSpec): Promise<void> {
    assertCollectionName(collection);
    assertSpec(spec);
    let existing = await this.describeCollection(collection);
    if (!existing) {
      try {
        await this.client.createCollection(collection, { vectors: { size: spec.dimension, distance: 'Cosine' } });
        return;
      } catch (e) {
        // 409: created concurrently by another caller; check what it was created with
        if (httpStatusOf(e) !== 409)
          throw toDomainError(e, { url: this.options.url, apiKey: this.options.apiKey, timeoutMs: this.timeoutMs, operation: 'create collection', collection });
      }
      existing = await this.describeCollection(collection);
      if (!existing) throw new CollectionNotFoundError(collection);
    }
    if (existing.dimension !== spec.dimension) throw new VectorDimensionError(collection, existing.dimension, spec.dimension);
  }

  async deleteCollection(collection: string): Promise<void> {
    assertCollectionName(collection);
    await this.read('delete collection', collection, () => this.client.deleteCollection(collection), false);
  }

  async upsert(collection: string, points: readonly VectorPoint[]): Promise<void> {
    assertCollectionName(collection);
    const prepared = preparePoints(points);
    // checked up front: Qdrant would reject only the failing request, after earlier batches were written
    const info = await this.describeCollection(collection);
    if (!info) throw new CollectionNotFoundError(collection);
    const wrong = firstWrongLength(
      prepared.map((p) => p.vector),
      info.dimension,
    );
    if (wrong !== undefined) throw new VectorDimensionError(collection, info.dimension, wrong);
    for (let i = 0; i < prepared.length; i += this.batch) {
      const slice = prepared.slice(i, i + this.batch).map((p) => ({ id: toPointId(p.id), vector: [...p.vector], payload: toQdrantPayload(p.id, p.payload) }));
      await this.call('upsert', collection, () => this.client.upsert(collection, { wait: true, points: slice }));
    }
  }

  async search(collection: string, query: SearchQuery): Promise<ScoredPoint[]> {
    assertCollectionName(collection);
    assertSearch(query);
    const result = await this.read(
      'search',
      collection,
      () =>
        this.client.query(collection, {
          query: [...query.vector],
          limit: query.limit,
          filter: toQdrantFilter(query.filter),
          score_threshold: query.scoreThreshold,
          with_payload: true,
        }),
      { points: [] },
    );
    return result.points.map((p) => ({ ...fromQdrantPoint(p), score: p.score }));
  }

  async get(collection: string, ids: readonly string[]): Promise<StoredPoint[]> {
    assertCollectionName(collection);
    assertIds(ids);
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const records = await this.read('retrieve', collection, () => this.client.retrieve(collection, { ids: unique.map(toPointId), with_payload: true }), []);
    const byId = new Map(records.map((r) => fromQdrantPoint(r)).map((p) => [p.id, p]));
    return unique.flatMap((id) => byId.get(id) ?? []);
  }

  async delete(collection: string, ids: readonly string[]): Promise<void> {
    assertCollectionName(collection);
    assertIds(ids);
    if (ids.length === 0) return;
    await this.read('delete', collection, () => this.client.delete(collection, { wait: true, points: ids.map(toPointId) }), undefined);
  }

  async count(collection: string, filter?: PayloadFilter): Promise<number> {
    assertCollectionName(collection);
    assertFilter(filter);
    const result = await this.read('count', collection, () => this.client.count(collection, { filter: toQdrantFilter(filter), exact: true }), { count: 0 });
    return result.count;
  }

  async list(collection: string, query: ListQuery): Promise<ListPage> {
    assertCollectionName(collection);
    assertList(query);
    assertCursor(query.cursor);
    const result = await this.read(
      'scroll',
      collection,
      () =>
        this.client.scroll(collection, {
          limit: query.limit,
          offset: query.cursor,
          filter: toQdrantFilter(query.filter),
          with_payload: true,
        }),
      { points: [], next_page_offset: null },
    );
    const next = result.next_page_offset;
    const points = result.points.map((p) => fromQdrantPoint(p));
    return next === null || next === undefined ? { points } : { points, next: String(next) };
  }
}
