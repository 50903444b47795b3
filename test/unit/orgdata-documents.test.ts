import { expect } from 'chai';
import { NotFoundError } from '../../domain/errors.js';
import { policyViolations } from '../../domain/orgdata/policy-match.js';
import { VectorDimensionError } from '../../domain/vector/vector-errors.js';
import { FakeEmbedder } from '../support/fake-embedder.js';
import { FakeVectorStore } from '../support/fake-vector-store.js';
import { orgDataParts } from '../support/orgdata-parts.js';
import { rejection } from '../support/rejection.js';
import { HashingEmbedder } from '../../infrastructure/embeddings/hashing-embedder.js';
import { patternDoc, policyDoc } from '../support/orgdata-fixtures.js';

type AnyResult = any;

describe('manageOrgData: patterns and policies (use cases with fakes)', () => {
  it('creates a pattern whole: generated id, stored with its embedding in a collection made with the embedder dimension', async () => {
    const { manage, store } = orgDataParts();
    const created = (await manage.execute({ dataType: 'pattern', operation: 'create', document: patternDoc })) as AnyResult;
    expect(created.id).to.match(/^[0-9a-f-]{36}$/);
    expect(created.item).to.deep.equal({ ...patternDoc, id: created.id, dataType: 'pattern', createdAt: '2026-01-01T00:00:00.000Z' });
    expect(await store.describeCollection('patterns')).to.include({ dimension: 8, count: 1 });
    const got = (await manage.execute({ dataType: 'pattern', operation: 'get', id: created.id })) as AnyResult;
    expect(got.item).to.deep.equal(created.item);
  });

  it('stores a policy with its constraints exactly as PolicyConstraint, usable by checkConstraints', async () => {
    const { manage } = orgDataParts();
    const created = (await manage.execute({ dataType: 'policy', operation: 'create', document: policyDoc })) as AnyResult;
    const { item } = (await manage.execute({ dataType: 'policy', operation: 'get', id: created.id })) as AnyResult;
    expect(item.constraints).to.deep.equal(policyDoc.constraints);
    const violations = policyViolations([{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1 } }], item.constraints);
    expect(violations).to.deep.equal([
      { object: 'Deployment web', field: 'spec.replicas', problem: 'production needs 3 replicas (must be at least 3, got 1)' },
    ]);
  });

  it('lists in pages with limit and cursor, visiting each document once, with the total', async () => {
    const { manage } = orgDataParts();
    const ids = new Set<string>();
    for (let i = 0; i < 7; i++)
      ids.add(((await manage.execute({ dataType: 'pattern', operation: 'create', document: { ...patternDoc, description: `pattern ${i}` } })) as AnyResult).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = (await manage.execute({ dataType: 'pattern', operation: 'list', limit: 3, ...(cursor ? { cursor } : {}) })) as AnyResult;
      expect(page.total).to.equal(7);
      expect(page.count).to.equal(page.items.length);
      seen.push(...page.items.map((i: { id: string }) => i.id));
      cursor = page.next;
      pages++;
    } while (cursor);
    expect(pages).to.equal(3);
    expect(new Set(seen)).to.deep.equal(ids);
    expect(seen).to.have.length(7);
  });

  it('lists an absent collection as empty', async () => {
    const { manage } = orgDataParts();
    expect(await manage.execute({ dataType: 'policy', operation: 'list' })).to.deep.equal({
      dataType: 'policy',
      operation: 'list',
      items: [],
      count: 0,
      total: 0,
    });
  });

  it('searches with scores, best first; an absent collection answers no results', async () => {
    const { manage } = orgDataParts({ embedder: new HashingEmbedder() });
    expect(((await manage.execute({ dataType: 'pattern', operation: 'search', query: 'anything' })) as AnyResult).results).to.deep.equal([]);
    await manage.execute({ dataType: 'pattern', operation: 'create', document: patternDoc });
    await manage.execute({
      dataType: 'pattern',
      operation: 'create',
      document: { ...patternDoc, description: 'PostgreSQL database with nightly backups', triggers: ['postgres database', 'relational database with backups'] },
    });
    const res = (await manage.execute({ dataType: 'pattern', operation: 'search', query: 'postgres database with backups', limit: 5 })) as AnyResult;
    expect(res.results).to.have.length(2);
    expect(res.results[0].item.description).to.equal('PostgreSQL database with nightly backups');
    expect(res.results[0].score).to.be.greaterThan(res.results[1].score);
  });

  it('deletes one (404 NOT_FOUND for an unknown id) and all of a dataType, answering the count', async () => {
    const { manage, store } = orgDataParts();
    const a = (await manage.execute({ dataType: 'policy', operation: 'create', document: policyDoc })) as AnyResult;
    await manage.execute({ dataType: 'policy', operation: 'create', document: policyDoc });
    await manage.execute({ dataType: 'pattern', operation: 'create', document: patternDoc });
    expect(await manage.execute({ dataType: 'policy', operation: 'delete', id: a.id })).to.deep.equal({
      dataType: 'policy',
      operation: 'delete',
      id: a.id,
      deleted: true,
    });
    const err = await rejection(manage.execute({ dataType: 'policy', operation: 'delete', id: a.id }));
    expect(err).to.be.instanceOf(NotFoundError);
    expect((err as NotFoundError).code).to.equal('NOT_FOUND');
    expect(await rejection(manage.execute({ dataType: 'policy', operation: 'get', id: 'nope' }))).to.be.instanceOf(NotFoundError);
    expect(await manage.execute({ dataType: 'policy', operation: 'deleteAll', confirm: true })).to.deep.equal({
      dataType: 'policy',
      operation: 'deleteAll',
      deletedCount: 1,
    });
    expect(await store.collectionExists('policies')).to.equal(false);
    expect(await store.count('patterns')).to.equal(1);
  });

  it('reports a collection built with another dimension with what to run, and writes nothing', async () => {
    const store = new FakeVectorStore();
    const first = orgDataParts({ store, embedder: new FakeEmbedder(8) });
    await first.manage.execute({ dataType: 'pattern', operation: 'create', document: patternDoc });
    const second = orgDataParts({ store, embedder: new FakeEmbedder(16) });
    for (const op of [
      { operation: 'create', document: patternDoc },
      { operation: 'search', query: 'web' },
    ] as const) {
      const err = await rejection(second.manage.execute({ dataType: 'pattern', ...op }));
      expect(err, op.operation).to.be.instanceOf(VectorDimensionError);
      expect(err.message).to.contain("collection 'patterns': it holds 8-dimensional vectors, got 16").and.to.contain('manageOrgData deleteAll for patterns');
    }
    expect(await store.count('patterns')).to.equal(1);
    // reads without vectors still work, and deleteAll then create rebuilds it with the new dimension
    expect(((await second.manage.execute({ dataType: 'pattern', operation: 'list' })) as AnyResult).total).to.equal(1);
    await second.manage.execute({ dataType: 'pattern', operation: 'deleteAll', confirm: true });
    await second.manage.execute({ dataType: 'pattern', operation: 'create', document: patternDoc });
    expect(await store.describeCollection('patterns')).to.include({ dimension: 16, count: 1 });
  });
});
