import path from 'node:path';
import { ConfigError, httpUrl, int, str, type Env } from './env-parsers.js';

export type VectorStoreConfig = { kind: 'qdrant'; url: string; apiKey?: string } | { kind: 'embedded'; dir: string };

export type EmbeddingsConfig = { kind: 'openai'; apiKey: string; baseURL: string; model: string; dimension?: number } | { kind: 'hashing'; dimension: number };

export interface VectorConfig {
  store: VectorStoreConfig;
  embeddings: EmbeddingsConfig;
}

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_EMBEDDINGS_MODEL = 'text-embedding-3-small';
export const DEFAULT_HASHING_DIMENSION = 384;

function parseStore(env: Env, dataDir: string): VectorStoreConfig {
  const url = httpUrl(env, 'QDRANT_URL');
  const apiKey = str(env, 'QDRANT_API_KEY');
  if (url === undefined) {
    if (apiKey !== undefined) throw new ConfigError('QDRANT_API_KEY', 'is set but QDRANT_URL is not: set QDRANT_URL to use Qdrant, or unset QDRANT_API_KEY');
    return { kind: 'embedded', dir: path.join(dataDir, 'vectors') };
  }
  if (new URL(url).username || new URL(url).password) {
    throw new ConfigError('QDRANT_URL', 'must not carry credentials: put the key in QDRANT_API_KEY');
  }
  return { kind: 'qdrant', url, ...(apiKey !== undefined ? { apiKey } : {}) };
}

function parseEmbeddings(env: Env): EmbeddingsConfig {
  const apiKey = str(env, 'OPENAI_API_KEY');
  const model = str(env, 'SVC_EMBEDDINGS_MODEL');
  if (apiKey === undefined) {
    if (model !== undefined) {
      throw new ConfigError(
        'SVC_EMBEDDINGS_MODEL',
        'is set but OPENAI_API_KEY is not: set OPENAI_API_KEY (any value for a server that needs none), or unset SVC_EMBEDDINGS_MODEL to use the local lexical embedder',
      );
    }
    return { kind: 'hashing', dimension: int(env, 'SVC_EMBEDDINGS_DIMENSIONS', DEFAULT_HASHING_DIMENSION, 8, 65536) };
  }
  const dimension = str(env, 'SVC_EMBEDDINGS_DIMENSIONS') === undefined ? undefined : int(env, 'SVC_EMBEDDINGS_DIMENSIONS', 0, 1, 65536);
  return {
    kind: 'openai',
    apiKey,
    baseURL: httpUrl(env, 'OPENAI_BASE_URL') ?? DEFAULT_OPENAI_BASE_URL,
    model: model ?? DEFAULT_EMBEDDINGS_MODEL,
    ...(dimension !== undefined ? { dimension } : {}),
  };
}

/**
 * Vector store and embeddings: QDRANT_URL set -> Qdrant, else the embedded
 * store under SVC_DATA_DIR/vectors; OPENAI_API_KEY set -> OpenAI-compatible
 * embeddings, else the local lexical hashing embedder.
 */
export function parseVectorConfig(env: Env, dataDir: string): VectorConfig {
  return { store: parseStore(env, dataDir), embeddings: parseEmbeddings(env) };
}
