/** Health of the vector database as the `version` tool and /readyz report it. */
export interface VectorStoreHealth {
  connected: boolean;
  /** Which adapter answers: 'qdrant' or 'embedded'. */
  provider: string;
  /** Server version when the adapter talks to a server. */
  version?: string;
  /** Set when not connected. Never carries a credential. */
  error?: string;
  /** Things an operator must know although the store answers (for example a corrupt file set aside). */
  warnings?: string[];
}

/** Only cosine similarity is used: every embedder the service has produces direction-meaningful vectors. */
export type VectorDistance = 'cosine';

/** JSON-serialisable point payload (no undefined, no functions). */
export type Payload = Record<string, unknown>;

/** What a collection must look like. */
export interface CollectionSpec {
  /** Vector length, 1..65536. */
  dimension: number;
  distance: VectorDistance;
}

/** A collection as it exists. */
export interface CollectionInfo extends CollectionSpec {
  name: string;
  /** Number of points. */
  count: number;
}

/** One point to store. */
export interface VectorPoint {
  /** Any non-empty string up to 256 characters; unique within a collection. */
  id: string;
  /** Exactly the collection's dimension of finite numbers. */
  vector: readonly number[];
  /** At most 256 KiB as JSON; the key `_svc_id` is reserved. */
  payload: Payload;
}

/** A stored point without its vector. */
export interface StoredPoint {
  id: string;
  payload: Payload;
}

/** A search hit. */
export interface ScoredPoint extends StoredPoint {
  /** Cosine similarity in [-1, 1]; higher is closer. */
  score: number;
}

/** A scalar a filter compares with: strings, integers and booleans (the types Qdrant's `match` supports). */
export type FilterScalar = string | number | boolean;

/**
 * One condition on a payload field. `key` is a dot path into nested objects
 * ('metadata.kind'). A field holding an array matches when any element matches.
 */
export type FieldCondition = { key: string; equals: FilterScalar } | { key: string; anyOf: readonly FilterScalar[] };

/** Points where every `must` condition holds and no `mustNot` condition holds. A missing field never matches. */
export interface PayloadFilter {
  must?: readonly FieldCondition[];
  mustNot?: readonly FieldCondition[];
}

export interface SearchQuery {
  /** Exactly the collection's dimension of finite numbers. */
  vector: readonly number[];
  /** 1..1000 hits at most. */
  limit: number;
  filter?: PayloadFilter;
  /** Only hits with a score >= this value. */
  scoreThreshold?: number;
}

export interface ListQuery {
  /** 1..1000 points per page. */
  limit: number;
  /** Cursor from a previous page's `next`; absent for the first page. */
  cursor?: string;
  filter?: PayloadFilter;
}

export interface ListPage {
  points: StoredPoint[];
  /** Cursor of the next page; absent on the last page. */
  next?: string;
}

/**
 * Collections of vectors with JSON payloads, searched by cosine similarity.
 * Collections used by the tools: `patterns`, `policies`, `capabilities`.
 *
 * Common rules, honoured alike by every adapter (a shared contract suite checks them):
 * - Names, ids, vectors, payloads, filters and limits are validated before any I/O;
 *   a bad one throws ValidationError.
 * - A vector whose length differs from the collection's dimension throws
 *   VectorDimensionError; nothing is written.
 * - Reads on an absent collection behave as on an empty one; writes to an absent
 *   collection throw CollectionNotFoundError.
 * - A store that fails or does not answer throws DependencyError with a message
 *   that carries no credential.
 */
export interface VectorStore {
  /** Never throws: an unreachable store is `connected: false`. */
  health(): Promise<VectorStoreHealth>;
  /** Names of all collections, sorted. */
  listCollections(): Promise<string[]>;
  /** true when the collection exists. */
  collectionExists(collection: string): Promise<boolean>;
  /** The collection's dimension, distance and count; undefined when absent. */
  describeCollection(collection: string): Promise<CollectionInfo | undefined>;
  /**
   * Creates the collection when absent. When it exists with another dimension or
   * distance, throws VectorDimensionError and changes nothing (never recreates).
   */
  ensureCollection(collection: string, spec: CollectionSpec): Promise<void>;
  /** Drops the collection and its points; no-op when absent. */
  deleteCollection(collection: string): Promise<void>;
  /** Inserts or replaces points by id. Durable when the promise resolves. */
  upsert(collection: string, points: readonly VectorPoint[]): Promise<void>;
  /** Up to `limit` hits, best first; ties in any order. */
  search(collection: string, query: SearchQuery): Promise<ScoredPoint[]>;
  /** The points with these ids that exist, in the order asked. */
  get(collection: string, ids: readonly string[]): Promise<StoredPoint[]>;
  /** Deletes these ids; unknown ids are ignored. */
  delete(collection: string, ids: readonly string[]): Promise<void>;
  /** Number of points (matching the filter when given); 0 for an absent collection. */
  count(collection: string, filter?: PayloadFilter): Promise<number>;
  /** One page of points in a stable, adapter-defined order; paging visits each point once. */
  list(collection: string, query: ListQuery): Promise<ListPage>;
}
