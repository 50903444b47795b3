/** Health of the vector database as the `version` tool and /readyz report it. */
export interface VectorStoreHealth {
  connected: boolean;
  /** Which adapter answers: 'qdrant' or 'embedded'. */
  provider: string;
  /** Set when not connected. Never carries a credential. */
  error?: string;
}

/**
 * Collections of vectors with payloads. The full port grows with the vector
 * store issue; the version tool needs health, exists and count.
 */
export interface VectorStore {
  /** Never throws: an unreachable store is `connected: false`. */
  health(): Promise<VectorStoreHealth>;
  /** true when the collection exists. Throws DependencyError when the store does not answer. */
  collectionExists(collection: string): Promise<boolean>;
  /** Number of points; 0 for an absent collection. Throws DependencyError when the store does not answer. */
  count(collection: string): Promise<number>;
}
