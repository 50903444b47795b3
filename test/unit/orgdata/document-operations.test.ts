import { expect } from 'chai';
import { CollectionOperations, DEFAULT_LIMIT, DocumentOperations } from '../../../application/orgdata/document-operations.js';
import { OrgCollection } from '../../../application/orgdata/org-collection.js';
import { FakeClock } from '../../support/fake-clock.js';
import { FakeEmbedder } from '../../support/fake-embedder.js';
import { FakeVectorStore } from '../../support/fake-vector-store.js';
import { patternDoc } from '../../support/orgdata-fixtures.js';
import { rejection } from '../../support/rejection.js';

/** Pattern operations over a collection in memory, ids counted up. */
function patternsOver() {
  const clock = new FakeClock(Date.UTC(2026, 11, 3, 9, 0, 0));
  const collection = new OrgCollection('patterns', new FakeVectorStore(), new FakeEmbedder(8), 'manageOrgData deleteAll for patterns');
  let n = 0;
  const ids = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  return { collection, patterns: new DocumentOperations('pattern', collection, clock, ids) };
}

describe('DocumentOperations and CollectionOperations: what manageOrgData does to one collection', () => {
  it('create stores the whole document under a new id with its time, and the creator the caller names (else the caller)', async () => {
    const { patterns } = patternsOver();
    const created = await patterns.create(patternDoc, 'alice');
    expect(created).to.deep.include({ dataType: 'pattern', operation: 'create', id: '00000000-0000-4000-8000-000000000001' });
    expect(created.item).to.deep.include({ description: patternDoc.description, createdBy: 'platform-team', createdAt: '2026-12-03T09:00:00.000Z' });
    const { createdBy: _named, ...unnamed } = patternDoc;
    expect((await patterns.create(unnamed, 'alice')).item).to.deep.include({ createdBy: 'alice' });
  });

  it('list pages with a cursor and the total; get and search answer the stored item with its id', async () => {
    const { patterns } = patternsOver();
    for (let i = 0; i < 3; i++) await patterns.create({ ...patternDoc, description: `pattern number ${i}` }, 'a');
    const first = await patterns.list(2);
    expect(first).to.deep.include({ dataType: 'pattern', operation: 'list', count: 2, total: 3 });
    expect(first.next).to.be.a('string');
    const rest = await patterns.list(2, first.next);
    expect(rest).to.deep.include({ count: 1, total: 3 });
    expect(rest).not.to.have.property('next');
    const id = String(first.items[0]!.id);
    expect((await patterns.get(id)).item).to.deep.include({ id, dataType: 'pattern' });
    const found = await patterns.search('pattern number 2', 1);
    expect(found.results).to.have.length(1);
    expect(found.results[0]!.score).to.equal(Math.round(found.results[0]!.score * 10000) / 10000);
    expect(DEFAULT_LIMIT).to.equal(10);
  });

  it('get and delete of an unknown id are a NOT_FOUND saying how to list them; delete removes a known one', async () => {
    const { patterns } = patternsOver();
    const { id } = await patterns.create(patternDoc, 'a');
    for (const call of [() => patterns.get('nope'), () => patterns.delete('nope')]) {
      const err = await rejection(call());
      expect(err).to.have.property('code', 'NOT_FOUND');
      expect(err.message).to.include('list them with operation list');
    }
    expect(await patterns.delete(id)).to.deep.equal({ dataType: 'pattern', operation: 'delete', id, deleted: true });
    expect((await patterns.list()).total).to.equal(0);
  });

  it('deleteAll answers how many there were; the capabilities collection has the shared operations only', async () => {
    const { patterns, collection } = patternsOver();
    await patterns.create(patternDoc, 'a');
    await patterns.create(patternDoc, 'b');
    expect(await patterns.deleteAll()).to.deep.equal({ dataType: 'pattern', operation: 'deleteAll', deletedCount: 2 });
    const capabilities = new CollectionOperations('capabilities', collection);
    expect(capabilities).not.to.have.property('create');
    expect(await capabilities.list()).to.deep.include({ dataType: 'capabilities', total: 0 });
  });
});
