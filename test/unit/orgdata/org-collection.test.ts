import { expect } from 'chai';
import { OrgCollection } from '../../../application/orgdata/org-collection.js';
import { FakeEmbedder } from '../../support/fake-embedder.js';
import { FakeVectorStore } from '../../support/fake-vector-store.js';
import { rejection } from '../../support/rejection.js';

const REBUILD = 'manageOrgData deleteAll for patterns';
const doc = (id: string, text = `text of ${id}`) => ({ id, text, payload: { name: id } });

/** A patterns collection over a store in memory and an embedder of `dimension`. */
function collectionOver(store = new FakeVectorStore(), dimension = 8) {
  return { store, patterns: new OrgCollection('patterns', store, new FakeEmbedder(dimension), REBUILD) };
}

describe("OrgCollection: one organisational-data collection, created with the embedder's dimension and never written over with another", () => {
  it('the first write creates the collection with the embedder dimension; an empty write creates nothing; search finds what was written', async () => {
    const { store, patterns } = collectionOver();
    await patterns.upsert([]);
    expect(await store.describeCollection('patterns')).to.equal(undefined);
    expect(await patterns.search('anything', 5)).to.deep.equal([]);
    await patterns.upsert([doc('a'), doc('b')]);
    expect(await store.describeCollection('patterns')).to.deep.include({ dimension: 8 });
    expect((await patterns.search('text of a', 1))[0]).to.deep.include({ id: 'a' });
    expect((await patterns.get('b'))?.payload).to.deep.equal({ name: 'b' });
  });

  it('a collection built with another dimension is refused with what to run to rebuild it, and nothing is written', async () => {
    const store = new FakeVectorStore();
    await collectionOver(store, 4).patterns.upsert([doc('old')]);
    const { patterns } = collectionOver(store, 8);
    for (const call of [() => patterns.upsert([doc('new')]), () => patterns.assertDimension()]) {
      const err = await rejection(call());
      expect(err.name).to.equal('VectorDimensionError');
      expect(err.message).to.include(REBUILD);
    }
    expect(await store.count('patterns')).to.equal(1);
  });

  it('a collection dropped elsewhere meanwhile is created again on the next write, once', async () => {
    const { store, patterns } = collectionOver();
    await patterns.upsert([doc('a')]);
    await store.deleteCollection('patterns');
    await patterns.upsert([doc('b')]);
    expect(await store.count('patterns')).to.equal(1);
  });

  it('deleteAll answers how many documents there were and drops the collection; the next write recreates it', async () => {
    const { store, patterns } = collectionOver();
    await patterns.upsert([doc('a'), doc('b'), doc('c')]);
    expect(await patterns.deleteAll()).to.equal(3);
    expect(await store.describeCollection('patterns')).to.equal(undefined);
    await patterns.upsert([doc('d')]);
    expect(await store.count('patterns')).to.equal(1);
    await patterns.delete('d');
    expect(await patterns.get('d')).to.equal(undefined);
  });
});
