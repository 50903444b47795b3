import path from 'node:path';
import { parseAwsConfig, type AwsConfig } from './aws-config.js';
import { ConfigError, httpUrl, int, oneOf, str, type Env } from './env-parsers.js';
import { parseLlmHeaders } from './llm-headers.js';

export type VectorStoreConfig = { kind: 'qdrant'; url: string; apiKey?: string } | { kind: 'embedded'; dir: string };

export type EmbeddingsConfig =
  | {
      kind: 'openai';
      /** undefined: a server that needs no key (Hugging Face TEI, a local Ollama). */
      apiKey?: string;
      baseURL: string;
      model: string;
      dimension?: number;
      /** SVC_LLM_HEADERS, when the embeddings go to the chat server (no SVC_EMBEDDINGS_BASE_URL). */
      secretHeaders?: Record<string, string>;
    }
  | { kind: 'bedrock'; aws: AwsConfig; model: string; dimension?: number }
  | { kind: 'hashing'; dimension: number };

export interface VectorConfig {
  store: VectorStoreConfig;
  embeddings: EmbeddingsConfig;
}

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_EMBEDDINGS_MODEL = 'text-embedding-3-small';
export const DEFAULT_BEDROCK_EMBEDDINGS_MODEL = 'amazon.titan-embed-text-v2:0';
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

function dimensionSetting(env: Env): { dimension?: number } {
  return str(env, 'SVC_EMBEDDINGS_DIMENSIONS') === undefined ? {} : { dimension: int(env, 'SVC_EMBEDDINGS_DIMENSIONS', 0, 1, 65536) };
}

/**
 * SVC_EMBEDDINGS_PROVIDER, or by default: an own SVC_EMBEDDINGS_BASE_URL or
 * SVC_EMBEDDINGS_API_KEY -> OpenAI-compatible embeddings there; OPENAI_API_KEY
 * -> embeddings at the chat server only when it is OpenAI's own API (no
 * OPENAI_BASE_URL, or api.openai.com) or SVC_EMBEDDINGS_MODEL names a model
 * for it: a vLLM or Ollama chat server usually serves no embedding model, and
 * text-embedding-3-small there would fail every search. Otherwise local.
 */
function parseEmbeddings(env: Env): EmbeddingsConfig {
  const ownUrl = httpUrl(env, 'SVC_EMBEDDINGS_BASE_URL');
  // the chat server's key goes only to the chat server: an own URL takes an own key (or none)
  const apiKey = str(env, 'SVC_EMBEDDINGS_API_KEY') ?? (ownUrl === undefined ? str(env, 'OPENAI_API_KEY') : undefined);
  const model = str(env, 'SVC_EMBEDDINGS_MODEL');
  const chatIsOpenAi = new URL(httpUrl(env, 'OPENAI_BASE_URL') ?? DEFAULT_OPENAI_BASE_URL).hostname === 'api.openai.com';
  const asked = ownUrl !== undefined || str(env, 'SVC_EMBEDDINGS_API_KEY') !== undefined || (apiKey !== undefined && (chatIsOpenAi || model !== undefined));
  const fallback = asked ? 'openai' : 'local';
  const provider = oneOf(env, 'SVC_EMBEDDINGS_PROVIDER', ['openai', 'bedrock', 'local'] as const, fallback);
  if (provider === 'local') {
    if (model !== undefined) {
      throw new ConfigError(
        'SVC_EMBEDDINGS_MODEL',
        'is set but OPENAI_API_KEY is not: set OPENAI_API_KEY (any value for a server that needs none) or SVC_EMBEDDINGS_BASE_URL or SVC_EMBEDDINGS_PROVIDER, or unset SVC_EMBEDDINGS_MODEL to use the local lexical embedder',
      );
    }
    return { kind: 'hashing', dimension: int(env, 'SVC_EMBEDDINGS_DIMENSIONS', DEFAULT_HASHING_DIMENSION, 8, 65536) };
  }
  if (provider === 'bedrock') {
    return {
      kind: 'bedrock',
      aws: parseAwsConfig(env, 'SVC_EMBEDDINGS_PROVIDER=bedrock'),
      model: model ?? DEFAULT_BEDROCK_EMBEDDINGS_MODEL,
      ...dimensionSetting(env),
    };
  }
  if (apiKey === undefined && ownUrl === undefined) {
    throw new ConfigError('SVC_EMBEDDINGS_PROVIDER', 'is openai but neither OPENAI_API_KEY, SVC_EMBEDDINGS_API_KEY nor SVC_EMBEDDINGS_BASE_URL is set');
  }
  const headers = ownUrl === undefined ? parseLlmHeaders(env) : {};
  return {
    kind: 'openai',
    ...(apiKey !== undefined ? { apiKey } : {}),
    baseURL: ownUrl ?? httpUrl(env, 'OPENAI_BASE_URL') ?? DEFAULT_OPENAI_BASE_URL,
    model: model ?? DEFAULT_EMBEDDINGS_MODEL,
    ...dimensionSetting(env),
    ...(Object.keys(headers).length ? { secretHeaders: headers } : {}),
  };
}

/**
 * Vector store and embeddings: QDRANT_URL set -> Qdrant, else the embedded
 * store under SVC_DATA_DIR/vectors; embeddings as parseEmbeddings says.
 */
export function parseVectorConfig(env: Env, dataDir: string): VectorConfig {
  return { store: parseStore(env, dataDir), embeddings: parseEmbeddings(env) };
}
