import type OpenAI from 'openai';
import { DependencyError, DomainError } from '../../domain/errors.js';
import type { Embedder, EmbedderInfo } from '../../domain/ports/embedder.js';
import { scrubText, scrubUrl } from '../../domain/security/scrub-credentials.js';
import { assertTexts } from '../../domain/vector/embedding-rules.js';
import { EmbeddingDimension } from './embedding-dimension.js';
import { openAiSdk } from '../llm/openai-sdk.js';

export interface OpenAiEmbedderOptions {
  /** SVC_EMBEDDINGS_API_KEY or OPENAI_API_KEY; undefined for a server that needs none (TEI). */
  apiKey?: string;
  /** SVC_LLM_HEADERS when the embeddings share the chat server; secret values. */
  headers?: Record<string, string>;
  /** OPENAI_BASE_URL: any OpenAI-compatible server, ending in its API root (for example .../v1). */
  baseURL: string;
  /** SVC_EMBEDDINGS_MODEL */
  model: string;
  /** SVC_EMBEDDINGS_DIMENSIONS: the length the model returns; else from the known-model table, else probed. */
  dimension?: number;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors, honouring Retry-After; default 2. */
  maxRetries?: number;
  /** Texts per request; default 256. */
  batchSize?: number;
}

/** Output lengths of OpenAI's own embedding models at their default size. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

/** The base64 form is little-endian float32, whatever the CPU. */
function decodeBase64(encoded: string): number[] | undefined {
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
  const out = new Array<number>(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
  return out;
}

/**
 * Embedder on any OpenAI-compatible `/embeddings` endpoint (openai SDK). Asks
 * for base64 (smaller and exact) and also accepts servers that answer with
 * plain float arrays anyway. Every vector is checked for length and finiteness.
 */
export class OpenAiEmbedder implements Embedder {
  private readonly dim: EmbeddingDimension;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private sdkClient: OpenAI | undefined;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.dim = new EmbeddingDimension(options.dimension ?? KNOWN_DIMENSIONS[options.model], (what) => this.invalid(what));
    this.batchSize = options.batchSize ?? 256;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** The SDK's client, made on the first request (the SDK loads then, not at start). */
  private get client(): OpenAI {
    return (this.sdkClient ??= new (openAiSdk().OpenAI)({
      // the SDK insists on a key; a server that needs none ignores the bearer header
      apiKey: this.options.apiKey ?? 'unused',
      baseURL: this.options.baseURL,
      defaultHeaders: this.options.headers,
      // explicit nulls: otherwise the SDK reads OPENAI_ORG_ID / OPENAI_PROJECT_ID itself
      organization: null,
      project: null,
      timeout: this.timeoutMs,
      maxRetries: this.options.maxRetries ?? 2,
      logLevel: 'off',
    }));
  }

  info(): EmbedderInfo {
    return { provider: 'openai', model: this.options.model, ...(this.dim.value !== undefined ? { dimension: this.dim.value } : {}), kind: 'semantic' };
  }

  async dimension(): Promise<number> {
    return this.dim.get(() => this.embed(['dimension probe']));
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    assertTexts(texts);
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) out.push(...(await this.embedBatch(texts.slice(i, i + this.batchSize))));
    return out;
  }

  private async embedBatch(batch: readonly string[]): Promise<number[][]> {
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await this.client.embeddings.create({ model: this.options.model, input: [...batch], encoding_format: 'base64' });
    } catch (e) {
      throw this.toDomainError(e);
    }
    const data = Array.isArray(response?.data) ? [...response.data].sort((a, b) => a.index - b.index) : [];
    if (data.length !== batch.length) {
      throw this.invalid(`answered with ${data.length} embeddings for ${batch.length} texts`);
    }
    return data.map((d) => {
      const raw = d.embedding as unknown;
      return this.dim.check(typeof raw === 'string' ? decodeBase64(raw) : raw);
    });
  }

  private invalid(what: string): DependencyError {
    return new DependencyError('embeddings', `Embedding service (model ${this.options.model}) ${what}`);
  }

  private toDomainError(e: unknown): DomainError {
    if (e instanceof DomainError) return e;
    const where = scrubUrl(this.options.baseURL);
    const secrets = [...(this.options.apiKey !== undefined ? [this.options.apiKey] : []), ...Object.values(this.options.headers ?? {})];
    const scrub = (s: string) => scrubText(s, secrets).slice(0, 500);
    const { APIConnectionError, APIConnectionTimeoutError, APIError } = openAiSdk();
    if (e instanceof APIConnectionTimeoutError) {
      return new DependencyError('embeddings', `Embedding service at ${where} did not answer within ${this.timeoutMs} ms`);
    }
    if (e instanceof APIConnectionError) {
      const cause = e.cause as { cause?: { code?: string }; code?: string } | undefined;
      const code = cause?.code ?? cause?.cause?.code ?? scrub(e.message);
      return new DependencyError('embeddings', `Embedding service at ${where} is unreachable: ${code}`);
    }
    if (e instanceof APIError && e.status !== undefined) {
      const detail = scrub(e.message);
      switch (e.status) {
        case 401:
        case 403:
          return new DependencyError(
            'embeddings',
            `Embedding service at ${where} rejected the credentials (${e.status}): check SVC_EMBEDDINGS_API_KEY or OPENAI_API_KEY`,
          );
        case 404:
          return new DependencyError(
            'embeddings',
            `Embedding service at ${where} does not know model '${this.options.model}' (404): check SVC_EMBEDDINGS_MODEL and SVC_EMBEDDINGS_BASE_URL (or OPENAI_BASE_URL)`,
          );
        case 429:
          return new DependencyError('embeddings', `Embedding service at ${where} is rate limiting (429) after retries: ${detail}`);
        default:
          return new DependencyError('embeddings', `Embedding service at ${where} failed (${e.status}): ${detail}`);
      }
    }
    return new DependencyError('embeddings', `Embedding service at ${where} failed: ${scrub((e as Error)?.message ?? String(e))}`);
  }
}
