import { expect } from 'chai';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DependencyError } from '../../domain/errors.js';
import { CollectionNotFoundError, VectorDimensionError } from '../../domain/vector/vector-errors.js';
import { toPointId } from '../../infrastructure/vector/qdrant-mapping.js';
import { QdrantVectorStore } from '../../infrastructure/vector/qdrant-vector-store.js';
import { rejection } from '../support/rejection.js';
import { QdrantServer } from '../support/qdrant-server.js';

const KEY = 'qdrant-key-0123456789';

describe('QdrantVectorStore specifics (wire-faithful server)', () => {
  let server: QdrantServer;
  beforeEach(async () => {
    server = await new QdrantServer({ apiKey: KEY }).start();
  });
  afterEach(() => server.stop());

  const store = (extra: Partial<ConstructorParameters<typeof QdrantVectorStore>[0]> = {}) => new QdrantVectorStore({ url: server.url, apiKey: KEY, ...extra });

  it('reports the server version and sends the API key as the api-key header', async () => {
    expect(await store().health()).to.deep.equal({ connected: true, provider: 'qdrant', version: '1.15.1' });
    expect(server.requests[0].headers['api-key']).to.equal(KEY);
  });

  it('says which variable to check when the key is refused, without echoing it', async () => {
    const wrong = 'wrong-key-abcdef123456';
    const health = await new QdrantVectorStore({ url: server.url, apiKey: wrong }).health();
    expect(health.connected).to.equal(false);
    expect(health.error).to.match(/refused version \(401\).*QDRANT_API_KEY/);
    expect(health.error).not.to.include(wrong);
    const err = await rejection(new QdrantVectorStore({ url: server.url }).listCollections());
    expect(err).to.be.instanceOf(DependencyError);
  });

  it('stores string ids as name-based UUIDs with the original id in the payload', async () => {
    const s = store();
    await s.ensureCollection('patterns', { dimension: 2, distance: 'cosine' });
    await s.upsert('patterns', [{ id: 'my pattern', vector: [1, 0], payload: { a: 1 } }]);
    const stored = [...server.state.collections.get('patterns')!.points.values()];
    expect(stored).to.have.length(1);
    expect(stored[0].id).to.equal(toPointId('my pattern'));
    expect(stored[0].id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stored[0].payload).to.deep.equal({ a: 1, _svc_id: 'my pattern' });
    expect(toPointId('my pattern')).to.equal(toPointId('my pattern'));
    expect(toPointId('my pattern')).not.to.equal(toPointId('my pattern '));
  });

  it('refuses a collection created elsewhere for another model instead of recreating it', async () => {
    server.state.collections.set('capabilities', { size: 1536, distance: 'Cosine', points: new Map() });
    const err = await rejection(store().ensureCollection('capabilities', { dimension: 384, distance: 'cosine' }));
    expect(err).to.be.instanceOf(VectorDimensionError);
    expect(err.message).to.match(/holds 1536-dimensional vectors, got 384/);
    expect(server.state.collections.get('capabilities')!.size).to.equal(1536);
    expect(server.requests.some((r) => r.method === 'PUT' || r.method === 'DELETE')).to.equal(false);
  });

  it('maps a dimension error reported by Qdrant itself', async () => {
    server.state.collections.set('patterns', { size: 3, distance: 'Cosine', points: new Map() });
    const err = await rejection(store().search('patterns', { vector: [1, 0], limit: 1 }));
    expect(err).to.be.instanceOf(VectorDimensionError);
    expect(err.message).to.match(/holds 3-dimensional vectors, got 2/);
  });

  it('refuses a collection with another distance', async () => {
    server.state.collections.set('patterns', { size: 2, distance: 'Dot', points: new Map() });
    const err = await rejection(store().ensureCollection('patterns', { dimension: 2, distance: 'cosine' }));
    expect(err.message).to.match(/uses Dot distance, svc needs Cosine/);
  });

  it('turns a server error into a DependencyError carrying Qdrant status text', async () => {
    server.failNext(500, 'Service internal error: disk full');
    const err = await rejection(store().count('patterns'));
    expect(err).to.be.instanceOf(DependencyError);
    expect(err.message).to.equal('Qdrant count failed (500): Service internal error: disk full');
  });

  it('keeps a collection deleted between the check and the write an error, not a silent loss', async () => {
    const s = store();
    await s.ensureCollection('patterns', { dimension: 2, distance: 'cosine' });
    server.failNext(404, "Not found: Collection `patterns` doesn't exist!");
    expect(await rejection(s.upsert('patterns', [{ id: 'a', vector: [1, 0], payload: {} }]))).to.be.instanceOf(CollectionNotFoundError);
  });

  it('uses a path prefix from QDRANT_URL', async () => {
    const prefixed = await new QdrantServer().start();
    try {
      const health = await new QdrantVectorStore({ url: `${prefixed.url}/qdrant/` }).health();
      expect(health.connected).to.equal(false); // the test server has no prefix: the request must have gone to /qdrant
      expect(prefixed.requests[0].path).to.equal('/qdrant/');
    } finally {
      await prefixed.stop();
    }
  });

  it('reports a refused port as unreachable', async () => {
    const url = server.url;
    await server.stop();
    const health = await new QdrantVectorStore({ url }).health();
    expect(health).to.include({ connected: false, provider: 'qdrant' });
    expect(health.error).to.match(/is unreachable during version: ECONNREFUSED/);
    server = await new QdrantServer().start();
  });

  it('gives up on a server that accepts and never answers', async () => {
    const hung = http.createServer(() => undefined);
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
      const err = await rejection(new QdrantVectorStore({ url, timeoutMs: 50 }).listCollections());
      expect(err).to.be.instanceOf(DependencyError);
      expect(err.message).to.match(/did not answer list collections within 50 ms/);
    } finally {
      hung.closeAllConnections();
      await new Promise<void>((r) => hung.close(() => r()));
    }
  });
});
