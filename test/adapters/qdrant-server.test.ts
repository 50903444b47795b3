import { expect } from 'chai';
import { QdrantServer } from '../support/qdrant-server.js';

/** The test server's own wire format, checked with raw HTTP against Qdrant's API reference. */
describe('Qdrant wire-faithful test server', () => {
  let server: QdrantServer;
  beforeEach(async () => {
    server = await new QdrantServer().start();
  });
  afterEach(() => server.stop());

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('answers the version object at / and wraps results as {result, status: "ok", time}', async () => {
    expect((await call('GET', '/')).body).to.include({ title: 'qdrant - vector search engine' });
    const created = await call('PUT', '/collections/c', { vectors: { size: 2, distance: 'Cosine' } });
    expect(created.status).to.equal(200);
    expect(created.body).to.include({ result: true, status: 'ok' });
    expect(created.body.time).to.be.a('number');
  });

  it('answers errors as {status: {error}, time} with Qdrant status codes and texts', async () => {
    const missing = await call('POST', '/collections/nope/points/count', {});
    expect(missing.status).to.equal(404);
    expect(missing.body.status.error).to.equal("Not found: Collection `nope` doesn't exist!");
    expect(missing.body.time).to.be.a('number');
    await call('PUT', '/collections/c', { vectors: { size: 2, distance: 'Cosine' } });
    const again = await call('PUT', '/collections/c', { vectors: { size: 2, distance: 'Cosine' } });
    expect(again.status).to.equal(409);
    const badId = await call('PUT', '/collections/c/points?wait=true', { points: [{ id: 'not-a-uuid', vector: [1, 0] }] });
    expect(badId.status).to.equal(400);
    expect(badId.body.status.error).to.match(/is not a valid point ID, valid values are either an unsigned integer or a UUID/);
    const badDim = await call('PUT', '/collections/c/points?wait=true', { points: [{ id: 1, vector: [1, 0, 0] }] });
    expect(badDim.body.status.error).to.equal('Wrong input: Vector dimension error: expected dim: 2, got 3');
  });

  it('serves the legacy search endpoint and integer and UUID ids alike', async () => {
    await call('PUT', '/collections/c', { vectors: { size: 2, distance: 'Cosine' } });
    const upsert = await call('PUT', '/collections/c/points?wait=true', {
      points: [
        { id: 7, vector: [3, 4], payload: { k: 'a' } },
        { id: 'AB2C3D4E-0000-4000-8000-000000000001', vector: [0, 1] },
      ],
    });
    expect(upsert.body.result.status).to.equal('completed');
    const hits = await call('POST', '/collections/c/points/search', { vector: [0, 2], limit: 5, with_payload: true });
    expect(hits.body.result.map((h: any) => h.id)).to.deep.equal(['ab2c3d4e-0000-4000-8000-000000000001', 7]);
    expect(hits.body.result[1].score).to.be.closeTo(0.8, 1e-6);
    const scroll = await call('POST', '/collections/c/points/scroll', { limit: 1 });
    expect(scroll.body.result.points[0].id).to.equal(7);
    expect(scroll.body.result.next_page_offset).to.equal('ab2c3d4e-0000-4000-8000-000000000001');
  });
});
