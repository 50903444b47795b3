import { expect } from 'chai';
import { CheckModel } from '../../application/check-model.js';
import { CheckReadiness } from '../../application/check-readiness.js';
import type { ClusterSummary } from '../../application/cluster/cluster-fleet.js';
import { withinCluster } from '../../application/cluster/current-cluster.js';
import { GetSystemStatus } from '../../application/get-system-status.js';
import { DependencyError } from '../../domain/errors.js';
import type { SharedStateStatus } from '../../domain/ports/shared-state.js';
import { versionOutput } from '../../domain/tools/outputs/version-output.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm, type FakeReply } from '../fakes/fake-llm.js';
import { FakeClock } from '../support/fake-clock.js';
import { FakeEmbedder } from '../support/fake-embedder.js';
import { FakeVectorStore, unreachable } from '../support/fake-vector-store.js';
import { RecordingTracer } from '../support/recording-tracer.js';

const RUNTIME = { version: '9.9.9', nodeVersion: 'v22.1.0', platform: 'linux', arch: 'x64' };
const SINGLE: SharedStateStatus = { configured: false, connected: false, provider: 'none' };

/** The version tool over fakes: the model's answers, the shared store's status and the fleet as a test gives them. */
async function versionOver(options: { model?: FakeReply[]; configured?: boolean; shared?: SharedStateStatus; fleet?: ClusterSummary[] } = {}) {
  const clock = new FakeClock();
  const store = new FakeVectorStore();
  await store.ensureCollection('patterns', { dimension: 4, distance: 'cosine' });
  await store.upsert('patterns', [{ id: 'p1', vector: [1, 0, 0, 0], payload: {} }]);
  const embedder = new FakeEmbedder(4);
  const llm = new FakeLlm(options.model ?? ['ok']);
  if (options.configured === false) llm.status = () => ({ configured: false, provider: 'none', hint: 'set SVC_LLM_PROVIDER' });
  const asked: (readonly string[] | undefined)[] = [];
  const fleet = options.fleet && { summaries: async (names?: readonly string[]) => (asked.push(names), options.fleet!) };
  const tool = new GetSystemStatus(
    RUNTIME,
    store,
    embedder,
    llm,
    new FakeCluster(),
    new RecordingTracer(),
    new CheckReadiness(store, embedder, clock),
    { status: async () => options.shared ?? SINGLE },
    new CheckModel(llm, clock),
    fleet,
  );
  return { tool, store, llm, asked };
}

describe('GetSystemStatus: the version tool, every dependency read from its port', () => {
  it('healthy when every dependency answers: the runtime, the collections with their counts, the model probed, in the shape SPEC.md gives', async () => {
    const { tool, llm } = await versionOver();
    const answer = await tool.execute();
    expect(versionOutput.safeParse(answer).error?.message).to.equal(undefined);
    expect(answer.status).to.equal('healthy');
    expect(answer.system.version).to.deep.equal(RUNTIME);
    expect(answer.system.vectorDB.collections).to.deep.equal({
      patterns: { exists: true, documentsCount: 1 },
      policies: { exists: false, documentsCount: 0 },
      capabilities: { exists: false, documentsCount: 0 },
    });
    expect(answer.system.aiProvider).to.deep.include({ configured: true, provider: 'fake', healthy: true });
    expect(answer.system.embedding).to.deep.include({ healthy: true, dimension: 4 });
    expect(llm.calls).to.have.length(1);
  });

  it('an unreachable vector store degrades the answer and reports no collection, without failing the call', async () => {
    const { tool, store } = await versionOver();
    store.failWith = unreachable();
    const answer = await tool.execute();
    expect(answer.status).to.equal('degraded');
    expect(answer.system.vectorDB).to.deep.include({ connected: false });
    expect(Object.values(answer.system.vectorDB.collections).every((c) => !c.exists)).to.equal(true);
  });

  it('one collection that cannot be read is reported with its error; the others still are', async () => {
    const { tool, store } = await versionOver();
    const exists = store.collectionExists.bind(store);
    store.collectionExists = async (name: string) => (name === 'policies' ? Promise.reject(new Error('policies: 500')) : exists(name));
    const { collections } = (await tool.execute()).system.vectorDB;
    expect(collections.policies).to.deep.equal({ exists: false, documentsCount: 0, error: 'policies: 500' });
    expect(collections.patterns).to.deep.equal({ exists: true, documentsCount: 1 });
  });

  it('a model that refuses the probe degrades the answer and says why; one not configured is never called', async () => {
    const refused = await versionOver({ model: [new DependencyError('llm', 'HTTP 401: invalid api key')] });
    const answer = await refused.tool.execute();
    expect(answer.status).to.equal('degraded');
    expect(answer.system.aiProvider).to.deep.include({ healthy: false });
    expect((answer.system.aiProvider as { error?: string }).error).to.include('invalid api key');
    const unset = await versionOver({ configured: false });
    const unconfigured = await unset.tool.execute();
    expect(unconfigured.status).to.equal('degraded');
    // the settings alone: no probe verdict is merged in
    expect(unconfigured.system.aiProvider).to.deep.equal({ configured: false, provider: 'none', hint: 'set SVC_LLM_PROVIDER' });
    expect(unset.llm.calls).to.deep.equal([]);
  });

  it('a shared store that is configured but not connected degrades the answer; none configured does not', async () => {
    const down = await versionOver({ shared: { configured: true, connected: false, provider: 'redis', error: 'ECONNREFUSED' } });
    expect((await down.tool.execute()).status).to.equal('degraded');
    expect((await (await versionOver({ shared: SINGLE })).tool.execute()).status).to.equal('healthy');
  });

  it('with a fleet: every cluster is listed, one unreachable makes kubernetes not connected, naming it; a call for one cluster asks for that one', async () => {
    const fleet: ClusterSummary[] = [
      { name: 'east', labels: { env: 'prod' }, readOnly: false, reachable: true, serverVersion: 'v1.31.0' },
      { name: 'west', labels: {}, readOnly: true, reachable: false, error: 'timeout' },
    ];
    const { tool, asked } = await versionOver({ fleet });
    const answer = await tool.execute();
    expect(answer.status).to.equal('degraded');
    expect(answer.system.kubernetes).to.deep.include({ connected: false, error: '1 of 2 clusters unreachable: west' });
    expect(answer.system.clusters).to.deep.equal(fleet);
    await withinCluster('east', () => tool.execute());
    expect(asked).to.deep.equal([undefined, ['east']]);
  });
});
