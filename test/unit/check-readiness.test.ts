import { expect } from 'chai';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CheckReadiness, type ReadinessReport } from '../../application/check-readiness.js';
import { OpenAiEmbedder } from '../../infrastructure/embeddings/openai-embedder.js';
import { QdrantVectorStore } from '../../infrastructure/vector/qdrant-vector-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { FakeEmbedder, never } from '../support/fake-embedder.js';
import { FakeVectorStore, unreachable } from '../support/fake-vector-store.js';
import { OpenAiCompatibleServer } from '../support/openai-compatible-server.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import type { SharedState } from '../../domain/ports/shared-state.js';

/** Lets settled promises and quick loopback I/O run before the fake clock moves. */
async function flush(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

describe('CheckReadiness', () => {
  let clock: FakeClock;
  let store: FakeVectorStore;
  let embedder: FakeEmbedder;
  let readiness: CheckReadiness;

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 4, 1, 12, 0, 0));
    store = new FakeVectorStore();
    embedder = new FakeEmbedder(4);
    readiness = new CheckReadiness(store, embedder, clock);
    await store.ensureCollection('capabilities', { dimension: 4, distance: 'cosine' });
    await store.upsert(
      'capabilities',
      [1, 2, 3].map((i) => ({ id: `c${i}`, vector: [i, 1, 0, 0], payload: {} })),
    );
  });

  it('is ready when the store answers and a real embedding has the expected dimension', async () => {
    expect(await readiness.execute()).to.deep.equal({
      ready: true,
      vectorDBHealthy: true,
      collectionAccessible: true,
      embeddingsRequired: true,
      embeddingHealthy: true,
      storedCount: 3,
      checkedAt: '2026-05-01T12:00:00.000Z',
    });
    expect(embedder.calls).to.have.length(1);
  });

  it('stays ready with an absent collection: collectionAccessible false and storedCount 0', async () => {
    await store.deleteCollection('capabilities');
    expect(await readiness.execute()).to.include({ ready: true, collectionAccessible: false, storedCount: 0 });
  });

  it('is not ready when the vector database fails, and omits the count it could not get', async () => {
    store.failWith = unreachable();
    const report = await readiness.execute();
    expect(report).to.include({ ready: false, vectorDBHealthy: false, collectionAccessible: false, embeddingHealthy: true });
    expect(report).not.to.have.property('storedCount');
  });

  for (const [what, vectors] of [
    ['a wrong-dimension embedding', [[0.1, 0.2, 0.3]]],
    ['NaN values', [[0.1, NaN, 0.3, 0.4]]],
    ['an infinite value', [[0.1, Infinity, 0.3, 0.4]]],
    ['no embedding at all', []],
  ] as const) {
    it(`is not ready on ${what}`, async () => {
      embedder.respond = async () => vectors.map((v) => [...v]);
      expect(await readiness.execute()).to.include({ ready: false, vectorDBHealthy: true, embeddingHealthy: false });
    });
  }

  it('is not ready when the embedding call fails', async () => {
    embedder.respond = () => Promise.reject(new Error('boom'));
    expect(await readiness.execute()).to.include({ ready: false, embeddingHealthy: false });
  });

  it('gives a silent embedding service 10 s, then reports it unavailable', async () => {
    embedder.respond = () => never();
    let settled = false;
    const pending = readiness.execute().then((r) => ((settled = true), r));
    await flush();
    clock.advance(9_999);
    await flush();
    expect(settled).to.equal(false);
    clock.advance(1);
    const report = await pending;
    expect(report).to.include({ ready: false, vectorDBHealthy: true, embeddingHealthy: false, storedCount: 3 });
    expect(report.checkedAt).to.equal('2026-05-01T12:00:10.000Z');
  });

  it('omits storedCount when only the count is silent, leaving collectionAccessible true', async () => {
    store.count = () => never();
    const pending = readiness.execute();
    await flush();
    clock.advance(10_000);
    const report = await pending;
    expect(report).to.include({ ready: true, collectionAccessible: true });
    expect(report).not.to.have.property('storedCount');
  });

  it('caches the result for 30 s, failures included', async () => {
    embedder.respond = () => Promise.reject(new Error('down'));
    const first = await readiness.execute();
    embedder.respond = undefined;
    clock.advance(29_999);
    expect(await readiness.execute()).to.equal(first);
    expect(embedder.calls).to.have.length(1);
    clock.advance(1);
    const second = await readiness.execute();
    expect(second).to.include({ ready: true });
    expect(embedder.calls).to.have.length(2);
  });

  it('lets concurrent callers share one probe', async () => {
    let release!: (v: number[][]) => void;
    embedder.respond = () => new Promise((r) => (release = r));
    const callers = Array.from({ length: 5 }, () => readiness.execute());
    await flush();
    release([[1, 2, 3, 4]]);
    const reports = await Promise.all(callers);
    expect(embedder.calls).to.have.length(1);
    reports.forEach((r: ReadinessReport) => expect(r).to.equal(reports[0]));
    expect(clock.pendingTimers).to.equal(0);
  });

  describe('with the real adapters', () => {
    it('is not ready when Qdrant accepts and never answers (10 s, fake clock)', async () => {
      const hung = http.createServer(() => undefined);
      await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
      try {
        const qdrant = new QdrantVectorStore({ url: `http://127.0.0.1:${(hung.address() as AddressInfo).port}` });
        const pending = new CheckReadiness(qdrant, embedder, clock).execute();
        await flush();
        clock.advance(10_000);
        const report = await pending;
        expect(report).to.include({ ready: false, vectorDBHealthy: false, collectionAccessible: false, embeddingHealthy: true });
        expect(report).not.to.have.property('storedCount');
      } finally {
        hung.closeAllConnections();
        await new Promise<void>((r) => hung.close(() => r()));
      }
    });

    it('is not ready when Qdrant refuses the connection', async () => {
      const probe = http.createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      const port = (probe.address() as AddressInfo).port;
      await new Promise<void>((r) => probe.close(() => r()));
      const report = await new CheckReadiness(new QdrantVectorStore({ url: `http://127.0.0.1:${port}` }), embedder, clock).execute();
      expect(report).to.include({ ready: false, vectorDBHealthy: false, embeddingHealthy: true });
    });

    it('is not ready when the embedding server hangs (10 s, fake clock)', async () => {
      const server = await new OpenAiCompatibleServer().start();
      server.hang = true;
      try {
        const openai = new OpenAiEmbedder({ apiKey: 'k', baseURL: server.baseURL, model: 'test-embed', dimension: 8, maxRetries: 0 });
        const pending = new CheckReadiness(store, openai, clock).execute();
        await flush();
        clock.advance(10_000);
        expect(await pending).to.include({ ready: false, vectorDBHealthy: true, embeddingHealthy: false });
      } finally {
        await server.stop();
      }
    });

    it('is not ready when the embedding server returns another dimension', async () => {
      const server = await new OpenAiCompatibleServer({ models: { 'test-embed': 3 } }).start();
      try {
        const openai = new OpenAiEmbedder({ apiKey: 'k', baseURL: server.baseURL, model: 'test-embed', dimension: 8, maxRetries: 0 });
        expect(await new CheckReadiness(store, openai, clock).execute()).to.include({ ready: false, embeddingHealthy: false });
      } finally {
        await server.stop();
      }
    });
  });
});

describe('CheckReadiness: the shared state store (REDIS_URL)', () => {
  const clock = () => new FakeClock(Date.UTC(2026, 4, 1, 12, 0, 0));
  const shared = (connected: boolean): SharedState => ({
    status: async () => ({
      configured: true,
      connected,
      provider: 'redis',
      url: 'redis://redis:6379',
      ...(connected ? {} : { error: 'Redis at redis://redis:6379 failed to answer PING: connect ECONNREFUSED' }),
    }),
  });

  it('reports sharedStateHealthy and the configured warnings without changing the ready rule', async () => {
    const up = await new CheckReadiness(new FakeVectorStore(), new FakeEmbedder(4), clock(), undefined, {
      sharedState: shared(true),
      warnings: ['vectors are not shared'],
    }).execute();
    expect(up).to.include({ ready: true, sharedStateHealthy: true });
    expect(up.warnings).to.deep.equal(['vectors are not shared']);
    const logger = new CapturingLogger();
    const down = await new CheckReadiness(new FakeVectorStore(), new FakeEmbedder(4), clock(), logger, { sharedState: shared(false) }).execute();
    expect(down).to.include({ ready: true, vectorDBHealthy: true, embeddingHealthy: true, sharedStateHealthy: false });
    expect(down).not.to.have.property('warnings');
    expect(logger.text()).to.contain('failed to answer PING');
  });

  it('omits both fields when no shared store is configured', async () => {
    const notConfigured: SharedState = { status: async () => ({ configured: false, connected: false, provider: 'none' }) };
    const report = await new CheckReadiness(new FakeVectorStore(), new FakeEmbedder(4), clock(), undefined, {
      sharedState: notConfigured,
      warnings: [],
    }).execute();
    expect(report).not.to.have.property('sharedStateHealthy');
    expect(report).not.to.have.property('warnings');
  });

  it('counts a shared store silent for 10 s as unhealthy', async () => {
    const c = clock();
    const pending = new CheckReadiness(new FakeVectorStore(), new FakeEmbedder(4), c, undefined, {
      sharedState: { status: () => new Promise(() => undefined) },
    }).execute();
    await flush();
    c.advance(10_000);
    expect(await pending).to.include({ ready: true, sharedStateHealthy: false });
  });
});
