import type { Embedder } from '../../domain/ports/embedder.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import type { VectorConfig } from '../config/vector-config.js';
import { HashingEmbedder } from '../embeddings/hashing-embedder.js';
import { OpenAiEmbedder } from '../embeddings/openai-embedder.js';
import { EmbeddedVectorStore } from './embedded-vector-store.js';
import { QdrantVectorStore } from './qdrant-vector-store.js';

/** QDRANT_URL set -> Qdrant; otherwise the embedded store under SVC_DATA_DIR. */
export function createVectorStore(config: VectorConfig, logger: Logger): VectorStore {
  const s = config.store;
  return s.kind === 'qdrant'
    ? new QdrantVectorStore({ url: s.url, ...(s.apiKey !== undefined ? { apiKey: s.apiKey } : {}) })
    : new EmbeddedVectorStore({ dir: s.dir, logger });
}

/** OPENAI_API_KEY set -> OpenAI-compatible embeddings; otherwise the local lexical embedder. */
export function createEmbedder(config: VectorConfig): Embedder {
  const e = config.embeddings;
  return e.kind === 'openai'
    ? new OpenAiEmbedder({ apiKey: e.apiKey, baseURL: e.baseURL, model: e.model, ...(e.dimension !== undefined ? { dimension: e.dimension } : {}) })
    : new HashingEmbedder(e.dimension);
}
