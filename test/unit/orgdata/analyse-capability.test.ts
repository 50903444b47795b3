import { expect } from 'chai';
import { AnalyseCapability } from '../../../application/orgdata/analyse-capability.js';
import { OrgCollection } from '../../../application/orgdata/org-collection.js';
import type { ScanTarget } from '../../../domain/orgdata/capability.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { FakeLlm, type FakeReply } from '../../fakes/fake-llm.js';
import { FakeEmbedder } from '../../support/fake-embedder.js';
import { FakeVectorStore } from '../../support/fake-vector-store.js';
import { analysisFor } from '../../support/orgdata-parts.js';
import { rejection } from '../../support/rejection.js';

const TARGET: ScanTarget = {
  id: 'cap-postgres',
  group: 'db.example.com',
  version: 'v1',
  apiVersion: 'db.example.com/v1',
  kind: 'Postgres',
  resource: 'postgreses',
} as ScanTarget;
const NOW = '2026-12-03T09:00:00.000Z';

/** AnalyseCapability over a cluster (with the kind's schema when asked), a model answering `script` and a capabilities collection in memory. */
function analyser(script: FakeReply[], withSchema = true) {
  const cluster = new FakeCluster();
  if (withSchema)
    cluster.schemas.set('db.example.com/v1/Postgres', {
      schema: { type: 'object', properties: { spec: { type: 'object', properties: { storageGiB: { type: 'integer' } } } } },
    } as never);
  const llm = new FakeLlm(script);
  const store = new FakeVectorStore();
  const collection = new OrgCollection('capabilities', store, new FakeEmbedder(8), 'manageOrgData deleteAll for capabilities');
  const analyse = new AnalyseCapability(cluster, llm, collection, { timeoutMs: 5000, maxTokens: 100_000, maxOutputTokens: 1500 });
  return { llm, store, collection, analyse };
}

describe("AnalyseCapability: one kind's schema read, analysed by the model, stored under the kind's own id", () => {
  it("stores the schema-checked analysis under the kind's id with the scan id and time, asking with the kind's schema summarised", async () => {
    const { llm, collection, analyse } = analyser([JSON.stringify(analysisFor('Postgres'))]);
    const doc = await analyse.execute(TARGET, 'scan_1', () => NOW);
    expect(doc).to.deep.include({ id: 'cap-postgres', dataType: 'capabilities', scanId: 'scan_1', analyzedAt: NOW, complexity: 'medium' });
    expect((await collection.get('cap-postgres'))?.payload).to.deep.include({ id: 'cap-postgres', scanId: 'scan_1', analyzedAt: NOW });
    expect(llm.calls[0]!.options).to.deep.include({ temperature: 0, maxOutputTokens: 1500 });
    expect(JSON.stringify(llm.calls[0]!.messages)).to.include('storageGiB');
  });

  it('a kind without a published schema is still analysed from its names', async () => {
    const { llm, analyse } = analyser([JSON.stringify(analysisFor('Postgres'))], false);
    expect((await analyse.execute(TARGET, 'scan_1', () => NOW)).id).to.equal('cap-postgres');
    expect(JSON.stringify(llm.calls[0]!.messages)).to.include('Postgres').and.not.include('storageGiB');
  });

  it('an answer unusable after its one retry fails this kind only, and nothing is stored', async () => {
    const { llm, collection, analyse } = analyser(['not json', '{"capabilities":"one"}', JSON.stringify(analysisFor('Postgres'))]);
    await rejection(analyse.execute(TARGET, 'scan_1', () => NOW));
    expect(llm.calls).to.have.length(2);
    expect(await collection.get('cap-postgres')).to.equal(undefined);
  });
});
