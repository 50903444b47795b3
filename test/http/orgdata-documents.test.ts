import { expect } from 'chai';
import request from 'supertest';
import { RecordingTracer } from '../support/recording-tracer.js';
import { embeddedBackend, ok, orgData, qdrantBackend, type StoreBackend } from '../support/orgdata-http.js';
import { patternDoc, policyDoc } from '../support/orgdata-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

for (const backend of [embeddedBackend(), qdrantBackend()] as StoreBackend[]) {
  describe(`HTTP manageOrgData: patterns and policies on the ${backend.name}, local embedder, no AI provider`, () => {
    beforeEach(() => backend.before());
    afterEach(() => backend.after());

    it('creates, lists in pages, gets, searches and deletes patterns and policies', async () => {
      const { app } = buildTestApp(backend.env());
      for (const [dataType, doc] of [
        ['pattern', patternDoc],
        ['policy', policyDoc],
      ] as const) {
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
          const created = await ok(app, {
            dataType,
            operation: 'create',
            document: { ...doc, description: `${doc.description} (${i})`, triggers: [...doc.triggers, `variant ${i} trigger`] },
          });
          expect(created).to.deep.include({ dataType, operation: 'create' });
          expect(created.item).to.deep.include({ id: created.id, dataType, createdBy: doc.createdBy });
          ids.push(created.id);
        }
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await ok(app, { dataType, operation: 'list', limit: 2, ...(cursor ? { cursor } : {}) });
          expect(page.total, dataType).to.equal(5);
          seen.push(...page.items.map((i: { id: string }) => i.id));
          cursor = page.next;
        } while (cursor);
        expect(seen.sort(), `${dataType} paging visits each once`).to.deep.equal([...ids].sort());

        const got = await ok(app, { dataType, operation: 'get', id: ids[3] });
        expect(got.item.description).to.equal(`${doc.description} (3)`);
        if (dataType === 'policy') expect(got.item.constraints).to.deep.equal(policyDoc.constraints);

        const found = await ok(app, { dataType, operation: 'search', query: 'variant 3 trigger', limit: 3 });
        expect(found.results).to.have.length(3);
        expect(found.results[0].item.id).to.equal(ids[3]);
        expect(found.results[0].score).to.be.a('number').within(0, 1);

        expect(await ok(app, { dataType, operation: 'delete', id: ids[0] })).to.deep.equal({ dataType, operation: 'delete', id: ids[0], deleted: true });
        const gone = await orgData(app, { dataType, operation: 'get', id: ids[0] }).expect(404);
        expect(gone.body.error.code).to.equal('NOT_FOUND');
      }
      expect((await ok(app, { dataType: 'pattern', operation: 'deleteAll', confirm: true })).deletedCount).to.equal(4);
      expect((await ok(app, { dataType: 'pattern', operation: 'list' })).total).to.equal(0);
      expect((await ok(app, { dataType: 'policy', operation: 'list' })).total).to.equal(4);
    });

    it('fills createdBy from the caller when the document names no creator, and keeps the one it names', async () => {
      const { app } = buildTestApp(backend.env());
      const { createdBy: _given, ...unnamed } = policyDoc;
      const filled = await ok(app, { dataType: 'policy', operation: 'create', document: unnamed });
      // SVC_AUTH_TOKEN's caller is named admin
      expect(filled.item.createdBy).to.equal('admin');
      expect((await ok(app, { dataType: 'policy', operation: 'get', id: filled.id })).item.createdBy).to.equal('admin');
      const named = await ok(app, { dataType: 'policy', operation: 'create', document: { ...policyDoc, description: 'named one' } });
      expect(named.item.createdBy).to.equal(policyDoc.createdBy);
    });

    it('answers 400 VALIDATION_ERROR listing the valid combinations for a wrong one, and for deleteAll without confirm', async () => {
      const { app } = buildTestApp(backend.env());
      const wrong = await orgData(app, { dataType: 'pattern', operation: 'scan' }).expect(400);
      expect(wrong.body.error.code).to.equal('VALIDATION_ERROR');
      expect(wrong.body.error.message).to.contain(
        'Valid combinations: pattern: create, list, get, delete, deleteAll, search; policy: create, list, get, delete, deleteAll, search; capabilities: scan, progress, list, get, delete, deleteAll, search',
      );
      const unconfirmed = await orgData(app, { dataType: 'policy', operation: 'deleteAll' }).expect(400);
      expect(unconfirmed.body.error.details).to.deep.equal([{ field: 'confirm', message: 'is required for policy deleteAll' }]);
    });

    it("moves the version tool's document counts as documents are added", async () => {
      const { app } = buildTestApp(backend.env());
      const counts = async () => (await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200)).body.data.result.system.vectorDB.collections;
      expect((await counts()).patterns).to.deep.equal({ exists: false, documentsCount: 0 });
      await ok(app, { dataType: 'pattern', operation: 'create', document: patternDoc });
      await ok(app, { dataType: 'pattern', operation: 'create', document: patternDoc });
      await ok(app, { dataType: 'policy', operation: 'create', document: policyDoc });
      const after = await counts();
      expect(after.patterns).to.deep.equal({ exists: true, documentsCount: 2 });
      expect(after.policies).to.deep.equal({ exists: true, documentsCount: 1 });
      expect(after.capabilities).to.deep.equal({ exists: false, documentsCount: 0 });
    });

    it('reports an embedder dimension change with what to run, writes nothing, and rebuilds after deleteAll', async () => {
      const first = buildTestApp(backend.env());
      const created = await ok(first.app, { dataType: 'pattern', operation: 'create', document: patternDoc });
      // a restart with another embedder (another dimension) on the same data
      const { app } = buildTestApp({ ...backend.env(first.config.server.dataDir), SVC_EMBEDDINGS_DIMENSIONS: '256' });
      for (const body of [
        { operation: 'create', document: patternDoc },
        { operation: 'search', query: 'web' },
      ]) {
        const res = await orgData(app, { dataType: 'pattern', ...body }).expect(500);
        expect(res.body.error.code).to.equal('EXECUTION_ERROR');
        expect(res.body.error.message)
          .to.contain("collection 'patterns': it holds 384-dimensional vectors, got 256")
          .and.to.contain('manageOrgData {"dataType":"pattern","operation":"deleteAll","confirm":true}, then create the patterns again');
      }
      const listed = await ok(app, { dataType: 'pattern', operation: 'list' });
      expect(listed.items.map((i: { id: string }) => i.id)).to.deep.equal([created.id]);
      await ok(app, { dataType: 'pattern', operation: 'deleteAll', confirm: true });
      await ok(app, { dataType: 'pattern', operation: 'create', document: patternDoc });
      const status = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
      expect(status.body.data.result.system.vectorDB.collections.patterns).to.deep.equal({ exists: true, documentsCount: 1 });
    });

    it('refuses a scan with 500 naming OPENAI_API_KEY when no AI provider is configured', async () => {
      const { app } = buildTestApp(backend.env());
      const res = await orgData(app, { dataType: 'capabilities', operation: 'scan' }).expect(500);
      expect(res.body.error.code).to.equal('EXECUTION_ERROR');
      expect(res.body.error.message).to.contain('OPENAI_API_KEY');
      expect(await ok(app, { dataType: 'capabilities', operation: 'progress' })).to.deep.include({ progress: null });
    });

    it('goes through the traced VectorStore: upsert and search spans with db.* attributes under the tool span', async () => {
      const tracer = new RecordingTracer();
      const { app } = buildTestApp(backend.env(), { tracer });
      await ok(app, { dataType: 'pattern', operation: 'create', document: patternDoc });
      await ok(app, { dataType: 'pattern', operation: 'search', query: 'stateless web application' });
      const upsert = tracer.spans.find((s) => s.name === 'upsert')!;
      expect(upsert.attributes).to.include({ 'db.operation.name': 'upsert', 'db.collection.name': 'patterns', 'db.operation.batch.size': 1 });
      expect(upsert.parent?.name).to.equal('execute_tool manageOrgData');
      const search = tracer.spans.find((s) => s.name === 'search')!;
      expect(search.attributes).to.include({ 'db.collection.name': 'patterns', 'db.query.result_count': 1 });
      expect(search.attributes['db.vector.top_score']).to.be.a('number');
    });
  });
}
