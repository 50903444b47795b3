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

/** As SVC_EMBEDDINGS_PROVIDER (or its default) says: an OpenAI-compatible service, Bedrock, or the local lexical embedder. */
export function createEmbedder(config: VectorConfig): Embedder {
  const e = config.embeddings;
  if (e.kind === 'hashing') return new HashingEmbedder(e.dimension);
  const dimension = e.dimension !== undefined ? { dimension: e.dimension } : {};
  if (e.kind === 'bedrock') {
    const { BedrockEmbedder } = require('../embeddings/bedrock-embedder.js') as typeof import('../embeddings/bedrock-embedder.js');
    return new BedrockEmbedder({ aws: e.aws, model: e.model, ...dimension });
  }
  const { OpenAiEmbedder } = require('../embeddings/openai-embedder.js') as typeof import('../embeddings/openai-embedder.js');
  return new OpenAiEmbedder({
    ...(e.apiKey !== undefined ? { apiKey: e.apiKey } : {}),
    baseURL: e.baseURL,
    model: e.model,
    ...dimension,
    ...(e.secretHeaders ? { headers: e.secretHeaders } : {}),
  });
}
