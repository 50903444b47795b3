import { NotConfiguredError } from '../../domain/errors.js';
import type { VectorStore, VectorStoreHealth } from '../../domain/ports/vector-store.js';

/** Placeholder until a vector store adapter is chosen by configuration. */
export class UnconfiguredVectorStore implements VectorStore {
  async health(): Promise<VectorStoreHealth> {
    return { connected: false, provider: 'none', error: 'no vector store configured: set QDRANT_URL' };
  }
  async collectionExists(): Promise<boolean> {
    throw new NotConfiguredError('The vector database', 'set QDRANT_URL');
  }
  async count(): Promise<number> {
    throw new NotConfiguredError('The vector database', 'set QDRANT_URL');
  }
}
