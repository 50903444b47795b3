import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import type { VectorPoint, VectorStore } from '../../domain/ports/vector-store.js';
import { CollectionNotFoundError, VectorDimensionError } from '../../domain/vector/vector-errors.js';
import { rejection } from '../support/rejection.js';

/** Builds a fresh, empty store for one test; `cleanup` releases it. */
export type StoreFactory = () => Promise<{ store: VectorStore; cleanup: () => Promise<void> }>;

function cosine(a: number[], b: number[]): number {
  const dot = a.reduce((s, x, i) => s + x * b[i], 0);
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return dot / (norm(a) * norm(b));
}

const C = 'patterns';
const point = (id: string, vector: number[], payload: Record<string, unknown> = {}): VectorPoint => ({ id, vector, payload });

/**
 * The behaviour every VectorStore adapter shares (the port's JSDoc), run
 * against the embedded store, the Qdrant adapter on the wire-faithful server
 * and the unit-test fake, so all three behave alike.
 */
export function vectorStoreContract(name: string, factory: StoreFactory): void {
  describe(`VectorStore contract: ${name}`, () => {
    let store: VectorStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => cleanup());

    async function seed(): Promise<void> {
      await store.ensureCollection(C, { dimension: 4, distance: 'cosine' });
      await store.upsert(C, [
        point('a', [1, 0, 0, 0], { kind: 'app', tags: ['web', 'db'], meta: { tier: 1 } }),
        point('b', [0.9, 0.1, 0, 0], { kind: 'app', tags: ['web'], meta: { tier: 2 } }),
        point('c', [0, 1, 0, 0], { kind: 'db', tags: ['db'], stateful: true }),
        point('d', [-1, 0, 0, 0], { kind: 'job' }),
      ]);
    }

    it('reports itself healthy', async () => {
      expect((await store.health()).connected).to.equal(true);
    });

    it('creates a collection once and describes it', async () => {
      expect(await store.collectionExists(C)).to.equal(false);
      await store.ensureCollection(C, { dimension: 4, distance: 'cosine' });
      await store.ensureCollection(C, { dimension: 4, distance: 'cosine' });
      await store.ensureCollection('capabilities', { dimension: 8, distance: 'cosine' });
      expect(await store.collectionExists(C)).to.equal(true);
      expect(await store.describeCollection(C)).to.deep.equal({ name: C, dimension: 4, distance: 'cosine', count: 0 });
      expect(await store.listCollections()).to.deep.equal(['capabilities', C]);
    });

    it('refuses to reuse a collection with another dimension and keeps its points', async () => {
      await seed();
      const e = await rejection(store.ensureCollection(C, { dimension: 1536, distance: 'cosine' }));
      expect(e).to.be.instanceOf(VectorDimensionError);
      expect(e.message).to.match(/holds 4-dimensional vectors, got 1536/);
      expect(await store.count(C)).to.equal(4);
    });

    it('treats reads of an absent collection as empty and refuses writes to it', async () => {
      expect(await store.describeCollection('policies')).to.equal(undefined);
      expect(await store.count('policies')).to.equal(0);
      expect(await store.search('policies', { vector: [1, 0], limit: 3 })).to.deep.equal([]);
      expect(await store.get('policies', ['x'])).to.deep.equal([]);
      expect(await store.list('policies', { limit: 5 })).to.deep.equal({ points: [] });
      await store.delete('policies', ['x']);
      await store.deleteCollection('policies');
      expect(await rejection(store.upsert('policies', [point('x', [1, 0])]))).to.be.instanceOf(CollectionNotFoundError);
    });

    it('stores arbitrary string ids and returns payloads as written, in the order asked', async () => {
      await store.ensureCollection(C, { dimension: 2, distance: 'cosine' });
      const longId = 'x'.repeat(256);
      const payload = { title: 'Ünïcode ✓', nested: { list: [1, 'two', { three: 3 }], empty: {} }, flag: false, none: null };
      await store.upsert(C, [point('pattern/alpha beta', [1, 2], payload), point(longId, [2, 1]), point('42', [1, 1])]);
      const got = await store.get(C, ['42', 'missing', 'pattern/alpha beta', longId, '42']);
      expect(got.map((p) => p.id)).to.deep.equal(['42', 'pattern/alpha beta', longId]);
      expect(got[1].payload).to.deep.equal(payload);
      got[1].payload.title = 'changed by the caller';
      expect((await store.get(C, ['pattern/alpha beta']))[0].payload.title).to.equal('Ünïcode ✓');
    });

    it('replaces a point by id', async () => {
      await seed();
      await store.upsert(C, [point('a', [0, 0, 1, 0], { kind: 'replaced' })]);
      expect(await store.count(C)).to.equal(4);
      expect((await store.get(C, ['a']))[0].payload).to.deep.equal({ kind: 'replaced' });
      const [top] = await store.search(C, { vector: [0, 0, 1, 0], limit: 1 });
      expect(top.id).to.equal('a');
      expect(top.score).to.be.closeTo(1, 1e-5);
    });

    it('ranks by cosine similarity, best first, independent of vector length', async () => {
      await seed();
      const query = [10, 2, 0, 0];
      const hits = await store.search(C, { vector: query, limit: 10 });
      expect(hits.map((h) => h.id)).to.deep.equal(['b', 'a', 'c', 'd']);
      const expected: Record<string, number[]> = { a: [1, 0, 0, 0], b: [0.9, 0.1, 0, 0], c: [0, 1, 0, 0], d: [-1, 0, 0, 0] };
      for (const h of hits) expect(h.score).to.be.closeTo(cosine(query, expected[h.id]), 1e-5);
      expect(hits[0].payload).to.deep.equal({ kind: 'app', tags: ['web'], meta: { tier: 2 } });
      expect((await store.search(C, { vector: query, limit: 2 })).map((h) => h.id)).to.deep.equal(['b', 'a']);
    });

    it('applies the score threshold and payload filters', async () => {
      await seed();
      const q = { vector: [1, 0.2, 0, 0], limit: 10 };
      expect((await store.search(C, { ...q, scoreThreshold: 0.5 })).map((h) => h.id)).to.deep.equal(['b', 'a']);
      expect((await store.search(C, { ...q, filter: { must: [{ key: 'kind', equals: 'app' }] } })).map((h) => h.id)).to.deep.equal(['b', 'a']);
      expect((await store.search(C, { ...q, filter: { must: [{ key: 'tags', equals: 'db' }] } })).map((h) => h.id)).to.deep.equal(['a', 'c']);
      expect((await store.search(C, { ...q, filter: { must: [{ key: 'kind', anyOf: ['db', 'job'] }] } })).map((h) => h.id)).to.deep.equal(['c', 'd']);
      expect((await store.search(C, { ...q, filter: { must: [{ key: 'meta.tier', equals: 2 }] } })).map((h) => h.id)).to.deep.equal(['b']);
      expect((await store.search(C, { ...q, filter: { must: [{ key: 'stateful', equals: true }] } })).map((h) => h.id)).to.deep.equal(['c']);
      expect((await store.search(C, { ...q, filter: { mustNot: [{ key: 'tags', equals: 'web' }] } })).map((h) => h.id)).to.deep.equal(['c', 'd']);
      expect(await store.search(C, { ...q, filter: { must: [{ key: 'absent', equals: 'x' }] } })).to.deep.equal([]);
    });

    it('refuses vectors of the wrong length and writes nothing of the batch', async () => {
      await seed();
      const e = await rejection(store.upsert(C, [point('e', [1, 1, 1, 1]), point('f', [1, 1, 1])]));
      expect(e).to.be.instanceOf(VectorDimensionError);
      expect(await store.count(C)).to.equal(4);
      expect(await store.get(C, ['e'])).to.deep.equal([]);
      expect(await rejection(store.search(C, { vector: [1, 0, 0], limit: 1 }))).to.be.instanceOf(VectorDimensionError);
    });

    it('validates input before touching the store', async () => {
      await seed();
      const bad: Promise<unknown>[] = [
        store.ensureCollection('../etc', { dimension: 4, distance: 'cosine' }),
        store.ensureCollection('ok', { dimension: 0, distance: 'cosine' }),
        store.upsert(C, [point('', [1, 0, 0, 0])]),
        store.upsert(C, [point('n', [1, NaN, 0, 0])]),
        store.upsert(C, [point('i', [1, Infinity, 0, 0])]),
        store.upsert(C, [point('r', [1, 0, 0, 0], { _svc_id: 'x' })]),
        store.upsert(C, [point('dup', [1, 0, 0, 0]), point('dup', [0, 1, 0, 0])]),
        store.search(C, { vector: [1, 0, 0, 0], limit: 0 }),
        store.search(C, { vector: [1, 0, 0, 0], limit: 1001 }),
        store.search(C, { vector: [1, 0, 0, 0], limit: 1, filter: { must: [{ key: 'meta.tier', equals: 1.5 }] } }),
        store.search(C, { vector: [1, 0, 0, 0], limit: 1, filter: { must: [{ key: 'kind', anyOf: [] }] } }),
        store.count(C, { must: [{ key: '_svc_id', equals: 'a' }] }),
        store.list(C, { limit: 1, cursor: '' }),
      ];
      for (const p of bad) expect(await rejection(p)).to.be.instanceOf(ValidationError);
      expect(await store.count(C)).to.equal(4);
      expect(await store.listCollections()).to.deep.equal([C]);
    });

    it('deletes points by id and ignores unknown ids', async () => {
      await seed();
      await store.delete(C, ['a', 'zzz', 'c']);
      expect(await store.count(C)).to.equal(2);
      expect((await store.search(C, { vector: [1, 0, 0, 0], limit: 10 })).map((h) => h.id)).to.deep.equal(['b', 'd']);
      await store.delete(C, []);
      expect(await store.count(C)).to.equal(2);
    });

    it('counts with a filter', async () => {
      await seed();
      expect(await store.count(C, { must: [{ key: 'kind', equals: 'app' }] })).to.equal(2);
      expect(await store.count(C, { mustNot: [{ key: 'kind', equals: 'app' }] })).to.equal(2);
      expect(await store.count(C, { must: [{ key: 'tags', anyOf: ['db'] }] })).to.equal(2);
    });

    it('pages through every point exactly once', async () => {
      await store.ensureCollection(C, { dimension: 2, distance: 'cosine' });
      const ids = Array.from({ length: 25 }, (_, i) => `p-${i}`);
      await store.upsert(
        C,
        ids.map((id, i) => point(id, [1, i], { even: i % 2 === 0 })),
      );
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list(C, { limit: 10, ...(cursor ? { cursor } : {}) });
        seen.push(...page.points.map((p) => p.id));
        expect(page.points.length).to.be.at.most(10);
        cursor = page.next;
        pages++;
      } while (cursor && pages < 10);
      expect(pages).to.equal(3);
      expect([...seen].sort()).to.deep.equal([...ids].sort());
      const evens = await store.list(C, { limit: 100, filter: { must: [{ key: 'even', equals: true }] } });
      expect(evens.points).to.have.length(13);
      expect(evens.next).to.equal(undefined);
    });

    it('drops a collection with its points and lets it be created anew', async () => {
      await seed();
      await store.deleteCollection(C);
      expect(await store.collectionExists(C)).to.equal(false);
      await store.ensureCollection(C, { dimension: 3, distance: 'cosine' });
      expect(await store.describeCollection(C)).to.deep.equal({ name: C, dimension: 3, distance: 'cosine', count: 0 });
    });
  });
}
