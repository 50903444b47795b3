import { InvokeModelCommand, type BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { DependencyError, DomainError } from '../../domain/errors.js';
import type { Embedder, EmbedderInfo } from '../../domain/ports/embedder.js';
import { scrubText } from '../../domain/security/scrub-credentials.js';
import { assertTexts } from '../../domain/vector/embedding-rules.js';
import type { AwsConfig } from '../config/aws-config.js';
import { credentialSettings } from '../llm/aws-credentials.js';
import { bedrockClient, bedrockFailure } from '../llm/bedrock-client.js';
import { EmbeddingDimension } from './embedding-dimension.js';

export interface BedrockEmbedderOptions {
  aws: AwsConfig;
  /** amazon.titan-embed-text-v1/v2 or cohere.embed-*. */
  model: string;
  dimension?: number;
  timeoutMs?: number;
  maxRetries?: number;
}

/** Output lengths at the models' default size. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'amazon.titan-embed-text-v2:0': 1024,
  'amazon.titan-embed-text-v1': 1536,
  'cohere.embed-english-v3': 1024,
  'cohere.embed-multilingual-v3': 1024,
};
/** Cohere takes up to 96 texts per request; Titan takes one. */
const COHERE_BATCH = 96;
/** Titan requests in flight at once. */
const TITAN_CONCURRENCY = 8;

/** Embedder on Bedrock's InvokeModel: Titan text embeddings (one text per request) or Cohere (batches). */
export class BedrockEmbedder implements Embedder {
  private readonly client: BedrockRuntimeClient;
  private readonly awsSecrets: () => string[];
  private readonly dim: EmbeddingDimension;
  private readonly cohere: boolean;

  constructor(private readonly options: BedrockEmbedderOptions) {
    ({ client: this.client, secrets: this.awsSecrets } = bedrockClient({
      aws: options.aws,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
    }));
    this.cohere = /(^|\.)cohere\.embed/.test(options.model);
    this.dim = new EmbeddingDimension(options.dimension ?? KNOWN_DIMENSIONS[options.model], (what) => this.invalid(what));
  }

  info(): EmbedderInfo {
    return { provider: 'bedrock', model: this.options.model, ...(this.dim.value !== undefined ? { dimension: this.dim.value } : {}), kind: 'semantic' };
  }

  async dimension(): Promise<number> {
    return this.dim.get(() => this.embed(['dimension probe']));
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    assertTexts(texts);
    const out: number[][] = [];
    if (this.cohere) {
      for (let i = 0; i < texts.length; i += COHERE_BATCH) {
        const batch = texts.slice(i, i + COHERE_BATCH);
        const body = (await this.invoke({ texts: batch, input_type: 'search_document' })) as { embeddings?: unknown };
        const vectors = Array.isArray(body.embeddings) ? body.embeddings : [];
        if (vectors.length !== batch.length) throw this.invalid(`answered with ${vectors.length} embeddings for ${batch.length} texts`);
        out.push(...vectors.map((v) => this.dim.check(v)));
      }
      return out;
    }
    for (let i = 0; i < texts.length; i += TITAN_CONCURRENCY) {
      const batch = texts.slice(i, i + TITAN_CONCURRENCY);
      const bodies = await Promise.all(
        batch.map((t) =>
          this.invoke({
            inputText: t,
            ...(this.options.dimension !== undefined && this.options.model.includes('v2') ? { dimensions: this.options.dimension } : {}),
          }),
        ),
      );
      out.push(...bodies.map((b) => this.dim.check((b as { embedding?: unknown }).embedding)));
    }
    return out;
  }

  private async invoke(body: Record<string, unknown>): Promise<unknown> {
    let raw: Uint8Array | undefined;
    try {
      const res = await this.client.send(
        new InvokeModelCommand({ modelId: this.options.model, contentType: 'application/json', accept: 'application/json', body: JSON.stringify(body) }),
      );
      raw = res.body;
    } catch (e) {
      throw this.toError(e);
    }
    try {
      return JSON.parse(Buffer.from(raw ?? []).toString('utf8')) as unknown;
    } catch {
      throw this.invalid('answered with a body that is not JSON');
    }
  }

  private invalid(what: string): DependencyError {
    return new DependencyError('embeddings', `Embedding service (Bedrock model ${this.options.model}) ${what}`);
  }

  private toError(e: unknown): DomainError {
    if (e instanceof DomainError) return e;
    const f = bedrockFailure(e);
    switch (f.kind) {
      case 'credentials':
        return new DependencyError('embeddings', `No usable AWS credentials for Bedrock embeddings; check ${credentialSettings(this.options.aws)}`);
      case 'status':
        return new DependencyError(
          'embeddings',
          `Embedding service (Bedrock model ${this.options.model}) failed (${f.status ?? 'no status'}): ${scrubText(f.detail, this.awsSecrets()).slice(0, 500)}`,
        );
      case 'timeout':
        return new DependencyError('embeddings', `Embedding service (Bedrock, region ${this.options.aws.region}) did not answer in time`);
      default:
        return new DependencyError('embeddings', `Embedding service (Bedrock, region ${this.options.aws.region}) is unreachable`);
    }
  }
}
