import type { Embedder } from '../../domain/ports/embedder.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import type { VectorConfig } from '../config/vector-config.js';
import { HashingEmbedder } from '../embeddings/hashing-embedder.js';
import { EmbeddedVectorStore } from './embedded-vector-store.js';

/** QDRANT_URL set -> Qdrant; otherwise the embedded store under SVC_DATA_DIR. */
export function createVectorStore(config: VectorConfig, logger: Logger): VectorStore {
  const s = config.store;
  if (s.kind !== 'qdrant') return new EmbeddedVectorStore({ dir: s.dir, logger });
  // SDKs load only when configured (start-up time and memory of the default configuration)
  const { QdrantVectorStore } = require('./qdrant-vector-store.js') as typeof import('./qdrant-vector-store.js');
  return new QdrantVectorStore({ url: s.url, ...(s.apiKey !== undefined ? { apiKey: s.apiKey } : {}) });
}

/** OPENAI_API_KEY set -> OpenAI-compatible embeddings; otherwise the local lexical embedder. */
export function createEmbedder(config: VectorConfig): Embedder {
  const e = config.embeddings;
  if (e.kind !== 'openai') return new HashingEmbedder(e.dimension);
  const { OpenAiEmbedder } = require('../embeddings/openai-embedder.js') as typeof import('../embeddings/openai-embedder.js');
  return new OpenAiEmbedder({ apiKey: e.apiKey, baseURL: e.baseURL, model: e.model, ...(e.dimension !== undefined ? { dimension: e.dimension } : {}) });
}
