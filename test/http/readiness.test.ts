import { expect } from 'chai';
import request from 'supertest';
import { FakeClock } from '../support/fake-clock.js';
import { FakeEmbedder } from '../support/fake-embedder.js';
import { FakeVectorStore, unreachable } from '../support/fake-vector-store.js';
import { auth, buildTestApp } from '../support/test-app.js';

const KEYS = ['ready', 'vectorDBHealthy', 'collectionAccessible', 'embeddingsRequired', 'embeddingHealthy', 'storedCount', 'checkedAt'];

describe('HTTP GET /readyz', () => {
  it('is bearer-gated', async () => {
    const { app } = buildTestApp();
    const res = await request(app).get('/readyz').expect(401);
    expect(res.headers['www-authenticate']).to.match(/^Bearer/);
  });

  it('answers 200 with the raw readiness object (no envelope) on the default adapters', async () => {
    const { app } = buildTestApp();
    const res = await request(app).get('/readyz').set(auth).expect(200);
    expect(res.body).to.have.keys(KEYS);
    expect(res.body).to.include({
      ready: true,
      vectorDBHealthy: true,
      collectionAccessible: false,
      embeddingsRequired: true,
      embeddingHealthy: true,
      storedCount: 0,
    });
    expect(new Date(res.body.checkedAt).toISOString()).to.equal(res.body.checkedAt);
  });

  it('answers 503 with the raw object when a required dependency is unavailable', async () => {
    const vectorStore = new FakeVectorStore();
    vectorStore.failWith = unreachable();
    const { app } = buildTestApp({}, { vectorStore, embedder: new FakeEmbedder(), clock: new FakeClock() });
    const res = await request(app).get('/readyz').set(auth).expect(503);
    expect(res.body).to.deep.equal({
      ready: false,
      vectorDBHealthy: false,
      collectionAccessible: false,
      embeddingsRequired: true,
      embeddingHealthy: true,
      checkedAt: new Date(new FakeClock().now()).toISOString(),
    });
  });

  it('serves the cached answer for 30 s', async () => {
    const embedder = new FakeEmbedder();
    const clock = new FakeClock();
    const { app } = buildTestApp({}, { vectorStore: new FakeVectorStore(), embedder, clock });
    await request(app).get('/readyz').set(auth).expect(200);
    embedder.respond = () => Promise.reject(new Error('down'));
    await request(app).get('/readyz').set(auth).expect(200);
    clock.advance(30_000);
    await request(app).get('/readyz').set(auth).expect(503);
  });
});

describe('version tool: vector database and embedding service', () => {
  it('reports each collection and the embedding service from the adapters', async () => {
    const vectorStore = new FakeVectorStore();
    await vectorStore.ensureCollection('patterns', { dimension: 4, distance: 'cosine' });
    await vectorStore.upsert('patterns', [
      { id: 'p1', vector: [1, 0, 0, 0], payload: {} },
      { id: 'p2', vector: [0, 1, 0, 0], payload: {} },
    ]);
    const { app } = buildTestApp({}, { vectorStore, embedder: new FakeEmbedder(4), clock: new FakeClock() });
    const res = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
    const system = res.body.data.result.system;
    expect(system.vectorDB).to.include({ connected: true, provider: 'fake' });
    expect(system.vectorDB.collections).to.deep.equal({
      patterns: { exists: true, documentsCount: 2 },
      policies: { exists: false, documentsCount: 0 },
      capabilities: { exists: false, documentsCount: 0 },
    });
    expect(system.embedding).to.deep.equal({ provider: 'fake', model: 'fake-model', dimension: 4, kind: 'semantic', healthy: true });
  });

  it('labels the default embedder lexical and the default store embedded', async () => {
    const { app } = buildTestApp();
    const system = (await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200)).body.data.result.system;
    expect(system.vectorDB).to.include({ connected: true, provider: 'embedded' });
    expect(system.embedding).to.deep.equal({ provider: 'local-hashing', model: 'hashing-ngrams-v1', dimension: 384, kind: 'lexical', healthy: true });
  });

  it('reports an unhealthy embedding service and a disconnected store', async () => {
    const vectorStore = new FakeVectorStore();
    vectorStore.failWith = unreachable();
    const embedder = new FakeEmbedder(4);
    embedder.respond = async () => [[NaN, 0, 0, 0]];
    const { app } = buildTestApp({}, { vectorStore, embedder, clock: new FakeClock() });
    const result = (await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200)).body.data.result;
    expect(result.status).to.equal('degraded');
    expect(result.system.vectorDB.connected).to.equal(false);
    expect(result.system.vectorDB.collections.patterns).to.deep.equal({ exists: false, documentsCount: 0 });
    expect(result.system.embedding.healthy).to.equal(false);
  });
});
