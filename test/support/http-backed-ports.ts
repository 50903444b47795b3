import http from 'node:http';
import { DependencyError } from '../../domain/errors.js';
import type { ClusterStatus } from '../../domain/ports/cluster-client.js';
import type { EmbedderInfo } from '../../domain/ports/embedder.js';
import type { LlmStatus } from '../../domain/ports/llm-provider.js';
import type { VectorStoreHealth } from '../../domain/ports/vector-store.js';

/*
 * Stand-ins for the outbound ports that make one real HTTP call per method to
 * a DependencyServer, so a traced call has a real nested HTTP client span.
 * Two transports on purpose: fetch (undici, like openai and Qdrant) and
 * node:http (like the Kubernetes client). They carry the methods a traced
 * tool run calls; the ports themselves are being completed in parallel, so
 * the stand-ins are cast to the port where they are passed in.
 */

async function viaFetch(url: string, init: RequestInit = {}): Promise<unknown> {
  const res = await fetch(url, init);
  const body = await res.json();
  if (!res.ok) throw new DependencyError('test', `${init.method ?? 'GET'} ${url} answered ${res.status}`);
  return body;
}

/**
 * One options object, the form node-fetch (under the Kubernetes client) uses. The
 * `(url, options)` form loses its headers here: nock, loaded by the test setup,
 * misreads the options object the OpenTelemetry http patch rewrites it into.
 */
function viaHttp(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port: Number(port), path: pathname + search, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if ((res.statusCode ?? 500) >= 400) reject(new DependencyError('kubernetes', `GET ${url} answered ${res.statusCode}`));
        else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

export class HttpBackedVectorStore {
  /** `apiKey` is sent as a query parameter, the way some hosted stores take it, so scrubbing of `url.full` is exercised. */
  constructor(
    private readonly base: string,
    private readonly apiKey: string,
  ) {}
  async health(): Promise<VectorStoreHealth> {
    await viaFetch(`${this.base}/healthz?api_key=${this.apiKey}`);
    return { connected: true, provider: 'test-vector' };
  }
  async collectionExists(collection: string): Promise<boolean> {
    await viaFetch(`${this.base}/collections/${collection}?api_key=${this.apiKey}`);
    return true;
  }
  async count(collection: string): Promise<number> {
    await viaFetch(`${this.base}/collections/${collection}/count?api_key=${this.apiKey}`);
    return 7;
  }
  async search(collection: string, query: { vector: number[]; limit: number }) {
    await viaFetch(`${this.base}/collections/${collection}/search?api_key=${this.apiKey}`, { method: 'POST', body: JSON.stringify(query) });
    return [
      { id: 'a', payload: {}, score: 0.91 },
      { id: 'b', payload: {}, score: 0.42 },
    ];
  }
}

export class HttpBackedEmbedder {
  constructor(
    private readonly base: string,
    private readonly apiKey: string,
  ) {}
  info(): EmbedderInfo {
    return { provider: 'openai', model: 'text-embedding-3-small', dimension: 3, kind: 'semantic' };
  }
  async embed(texts: string[]): Promise<number[][]> {
    await viaFetch(`${this.base}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${this.apiKey}` }, body: '{}' });
    return texts.map(() => [0.1, 0.2, 0.3]);
  }
}

export class HttpBackedLlm {
  constructor(
    private readonly base: string,
    private readonly apiKey: string,
  ) {}
  status(): LlmStatus {
    return { configured: true, provider: 'openai', model: 'gpt-test' };
  }
  async chat(_messages: unknown[], options: { model?: string } = {}) {
    await viaFetch(`${this.base}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${this.apiKey}` }, body: '{}' });
    return {
      text: 'ok',
      toolCalls: [],
      model: options.model ?? 'gpt-test',
      usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 100, cacheCreationTokens: 0 },
    };
  }
}

export class HttpBackedCluster {
  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}
  async status(): Promise<ClusterStatus> {
    await viaHttp(`${this.base}/version`, { authorization: `Bearer ${this.token}` });
    return { connected: true, context: 'test', serverVersion: 'v1.31.0' };
  }
  context(): string {
    return 'test';
  }
  async list(query: { apiVersion: string; kind: string; namespace?: string }) {
    await viaHttp(`${this.base}/apis/${query.apiVersion}/namespaces/${query.namespace}/${query.kind.toLowerCase()}s`, {
      authorization: `Bearer ${this.token}`,
    });
    return { items: [] };
  }
  /** A missing object: the server answers 500 here, and the error message carries a URL with credentials. */
  async get(ref: { apiVersion: string; kind: string; name: string; namespace?: string }) {
    try {
      await viaHttp(`${this.base}/fail/${ref.kind}/${ref.name}`, { authorization: `Bearer ${this.token}` });
      return null;
    } catch {
      throw new DependencyError('kubernetes', `GET https://admin:${this.token}@cluster.example/api/${ref.name} failed`);
    }
  }
}
