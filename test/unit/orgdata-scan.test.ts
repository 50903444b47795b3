import { expect } from 'chai';
import { DependencyError, NotConfiguredError, ValidationError } from '../../domain/errors.js';
import type { ChatMessage, ChatOptions, ChatResult } from '../../domain/llm/llm-types.js';
import type { LlmProvider, LlmStatus } from '../../domain/ports/llm-provider.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { FakeScanStateStore } from '../fakes/fake-scan-state-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { FakeVectorStore } from '../support/fake-vector-store.js';
import { analysisFor, capabilityReply, dozenKinds, kindOf, KINDS, orgDataParts, tick } from '../support/orgdata-parts.js';
import { rejection } from '../support/rejection.js';

type AnyResult = any;

/** A model that answers each kind when the test lets it (`release`), counting calls in flight. */
class GatedLlm implements LlmProvider {
  readonly waiting: { kind: string; go: () => void }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  readonly inner = new FakeLlm([], capabilityReply());
  status(): LlmStatus {
    return this.inner.status();
  }
  async chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise<void>((go) => this.waiting.push({ kind: kindOf(messages), go }));
    this.inFlight--;
    return this.inner.chat(messages, options);
  }
  /** Lets the `n` oldest waiting calls answer. */
  async release(n = this.waiting.length): Promise<void> {
    for (const w of this.waiting.splice(0, n)) w.go();
    for (let i = 0; i < 20; i++) await tick();
  }
}

const cluster = () => {
  const c = new FakeCluster();
  c.resources = dozenKinds();
  return c;
};

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await tick();
  }
  throw new Error(`never happened: ${what}`);
}

describe('manageOrgData: capability scan (use case with fakes)', () => {
  it('answers at once with the scan id and progress, then analyses a dozen kinds in batches of 4 in the background', async () => {
    const llm = new GatedLlm();
    const parts = orgDataParts({ llm, cluster: cluster() });
    const started = (await parts.manage.execute({ dataType: 'capabilities', operation: 'scan' })) as AnyResult;
    expect(started).to.deep.include({ dataType: 'capabilities', operation: 'scan', started: true, scanId: `scan_${'0'.repeat(31)}1` });
    expect(started.progress).to.deep.include({ status: 'running', done: 0, total: 12, failures: [] });
    await eventually(() => llm.waiting.length === 4, 'first batch asked');
    const midway = (await parts.manage.execute({ dataType: 'capabilities', operation: 'progress' })) as AnyResult;
    expect(midway.progress).to.deep.include({ status: 'running', done: 0, total: 12, current: 'deployment.apps' });
    expect(midway.progress.inFlight).to.deep.equal(['deployment.apps', 'statefulset.apps', 'daemonset.apps', 'replicaset.apps']);
    await llm.release(4);
    await eventually(() => llm.waiting.length === 4, 'second batch asked');
    const after = (await parts.manage.execute({ dataType: 'capabilities', operation: 'progress', id: started.scanId })) as AnyResult;
    expect(after.progress).to.deep.include({ done: 4, succeeded: 4, current: 'job.batch' });
    while (llm.waiting.length) await llm.release();
    await parts.scan.idle();
    expect(llm.maxInFlight).to.equal(4);
    const done = (await parts.manage.execute({ dataType: 'capabilities', operation: 'progress' })) as AnyResult;
    expect(done.progress).to.deep.include({ status: 'completed', done: 12, succeeded: 12, total: 12, failures: [] });
    expect(await parts.store.count('capabilities')).to.equal(12);
    const { item } = (await parts.manage.execute({ dataType: 'capabilities', operation: 'get', id: 'deployment.apps' })) as AnyResult;
    expect(item).to.deep.include({ id: 'deployment.apps', dataType: 'capabilities', complexity: 'medium', scanId: started.scanId });
    expect(item.resource).to.deep.equal({ group: 'apps', version: 'v1', apiVersion: 'apps/v1', kind: 'Deployment', resource: 'deployments', namespaced: true });
    expect(parts.states.lease, 'lease released when done').to.equal(undefined);
  });

  it('records a failing kind in failures and keeps the others', async () => {
    const llm = new FakeLlm([], (messages) =>
      kindOf(messages) === 'Secret' ? new DependencyError('llm', 'AI provider answered 500') : capabilityReply()(messages),
    );
    const parts = orgDataParts({ llm, cluster: cluster() });
    await parts.manage.execute({ dataType: 'capabilities', operation: 'scan' });
    await parts.scan.idle();
    const { progress } = (await parts.manage.execute({ dataType: 'capabilities', operation: 'progress' })) as AnyResult;
    expect(progress).to.deep.include({ status: 'completed', done: 12, succeeded: 11 });
    expect(progress.failures).to.deep.equal([{ resource: 'secret.core', reason: 'AI provider answered 500' }]);
    expect(await parts.store.count('capabilities')).to.equal(11);
  });

  it('fails only the kind whose model answer is hostile: bad JSON twice, or endless output', async () => {
    const llm = new FakeLlm([], (messages) => {
      const kind = kindOf(messages);
      if (kind === 'Job') return 'Sure! Here is the analysis: {capabilities: [batch';
      if (kind === 'CronJob') return `{"capabilities": ["${'x'.repeat(150_000)}"]}`;
      if (kind === 'Ingress') return JSON.stringify({ ...analysisFor(kind), complexity: 'extreme', confidence: 7 });
      return capabilityReply()(messages);
    });
    const parts = orgDataParts({ llm, cluster: cluster() });
    await parts.manage.execute({ dataType: 'capabilities', operation: 'scan' });
    await parts.scan.idle();
    const { progress } = (await parts.manage.execute({ dataType: 'capabilities', operation: 'progress' })) as AnyResult;
    expect(progress.succeeded).to.equal(9);
    const reasons = Object.fromEntries(progress.failures.map((f: { resource: string; reason: string }) => [f.resource, f.reason]));
    expect(Object.keys(reasons).sort()).to.deep.equal(['cronjob.batch', 'ingress.networking.k8s.io', 'job.batch']);
    expect(reasons['job.batch']).to.match(/capability analysis of Job.batch was unusable after one retry: the answer contains no JSON object/);
    expect(reasons['cronjob.batch']).to.contain('more than the 100000 allowed');
    expect(reasons['ingress.networking.k8s.io']).to.contain('complexity');
    for (const r of Object.values(reasons)) expect((r as string).length).to.be.at.most(500);
    // each hostile kind cost exactly its call and one retry
    expect(llm.calls.filter((c) => kindOf(c.messages) === 'Job')).to.have.length(2);
  });

  it('lets one scan run at a time: a second request says one is running, with its progress', async () => {
    const llm = new GatedLlm();
    const parts = orgDataParts({ llm, cluster: cluster() });
    const first = (await parts.manage.execute({ dataType: 'capabilities', operation: 'scan' })) as AnyResult;
    const second = (await parts.manage.execute({ dataType: 'capabilities', operation: 'scan', resources: ['Pod'] })) as AnyResult;
    expect(second).to.deep.include({ started: false, scanId: first.scanId });
    expect(second.message).to.contain('already running');
    expect(second.progress.total).to.equal(12);
    // another replica holding the lease counts too
    const other = orgDataParts({ llm: new FakeLlm([], capabilityReply()), cluster: cluster(), states: parts.states, clock: parts.clock, holder: 'holder-2' });
    expect(((await other.manage.execute({ dataType: 'capabilities', operation: 'scan' })) as AnyResult).started).to.equal(false);
    while (llm.waiting.length || parts.states.state?.status === 'running') await llm.release();
    await parts.scan.idle();
  });

  it('resumes an interrupted scan after a restart from where it stopped, once the old lease expires', async () => {
    const clock = new FakeClock();
    const states = new FakeScanStateStore(clock);
    const llm1 = new GatedLlm();
    // the first process: its own timers never fire (it is gone)
    const first = orgDataParts({ llm: llm1, cluster: cluster(), states, clock: new FakeClock(), holder: 'before-restart' });
    await first.manage.execute({ dataType: 'capabilities', operation: 'scan' });
    await eventually(() => llm1.waiting.length === 4, 'first batch');
    await llm1.release(4);
    await eventually(() => llm1.waiting.length === 4, 'second batch');
    await llm1.release(2); // two of the second batch finish, then the process dies
    expect(states.state!.completed).to.have.length(6);

    const llm2 = new FakeLlm([], capabilityReply());
    const second = orgDataParts({ llm: llm2, cluster: cluster(), states, clock, holder: 'after-restart', store: first.store });
    expect(await second.scan.resume()).to.equal('waiting');
    clock.advance(60_000 + 200);
    await eventually(() => states.state?.status === 'completed', 'resumed scan completed');
    await second.scan.idle();
    expect(llm2.calls.map((c) => kindOf(c.messages)).sort()).to.deep.equal(KINDS.slice(6).sort());
    const { progress } = (await second.manage.execute({ dataType: 'capabilities', operation: 'progress' })) as AnyResult;
    expect(progress).to.deep.include({ status: 'completed', done: 12, succeeded: 12, resumed: 1 });
    expect(await second.store.count('capabilities')).to.equal(12);
    expect(await second.scan.resume()).to.equal('none');
  });

  it('resumes at once after a graceful stop, which released the lease', async () => {
    const llm1 = new GatedLlm();
    const first = orgDataParts({ llm: llm1, cluster: cluster() });
    await first.manage.execute({ dataType: 'capabilities', operation: 'scan' });
    await eventually(() => llm1.waiting.length === 4, 'first batch');
    await llm1.release(4);
    await first.scan.stop();
    await llm1.release();
    expect(first.states.lease).to.equal(undefined);
    expect(first.states.state!.pending).to.have.length(8);
    const second = orgDataParts({ cluster: cluster(), states: first.states, clock: first.clock, holder: 'next', store: first.store });
    expect(await second.scan.resume()).to.equal('resumed');
    await second.scan.idle();
    expect(first.states.state).to.deep.include({ status: 'completed', resumed: 1 });
    expect(first.states.state!.completed).to.have.length(12);
  });

  it('scans a given list (several spellings), records names the cluster does not serve, refuses a list of only unknown ones', async () => {
    const parts = orgDataParts({ cluster: cluster() });
    const res = (await parts.manage.execute({
      dataType: 'capabilities',
      operation: 'scan',
      resources: ['deployments.apps', 'batch/v1/CronJob', 'Service', 'FlowSchema'],
    })) as AnyResult;
    expect(res.progress.total).to.equal(4);
    await parts.scan.idle();
    const { progress } = (await parts.manage.execute({ dataType: 'capabilities', operation: 'progress' })) as AnyResult;
    expect(progress).to.deep.include({ done: 4, succeeded: 3 });
    expect(progress.failures).to.deep.equal([{ resource: 'FlowSchema', reason: 'the cluster does not serve this resource' }]);
    const err = await rejection(parts.manage.execute({ dataType: 'capabilities', operation: 'scan', resources: ['Nope'] }));
    expect(err).to.be.instanceOf(ValidationError);
    expect(err.message).to.contain('It serves: Deployment, StatefulSet');
    expect(parts.states.lease).to.equal(undefined);
  });

  it('updates capabilities in place on a re-scan', async () => {
    const parts = orgDataParts({ cluster: cluster() });
    await parts.manage.execute({ dataType: 'capabilities', operation: 'scan' });
    await parts.scan.idle();
    const second = (await parts.manage.execute({ dataType: 'capabilities', operation: 'scan' })) as AnyResult;
    await parts.scan.idle();
    expect(await parts.store.count('capabilities')).to.equal(12);
    expect(((await parts.manage.execute({ dataType: 'capabilities', operation: 'get', id: 'service.core' })) as AnyResult).item.scanId).to.equal(second.scanId);
  });

  it('refuses to scan without an AI provider, naming OPENAI_API_KEY; progress says none ran', async () => {
    const none: LlmProvider = { status: () => ({ configured: false, provider: 'none' }), chat: () => Promise.reject(new Error('unreachable')) };
    const parts = orgDataParts({ llm: none, cluster: cluster() });
    const err = await rejection(parts.manage.execute({ dataType: 'capabilities', operation: 'scan' }));
    expect(err).to.be.instanceOf(NotConfiguredError);
    expect(err.message).to.contain('OPENAI_API_KEY');
    expect(await parts.manage.execute({ dataType: 'capabilities', operation: 'progress' })).to.deep.include({ progress: null });
  });

  it('refuses to start when the capabilities collection has another dimension, before any model call', async () => {
    const store = new FakeVectorStore();
    await store.ensureCollection('capabilities', { dimension: 3, distance: 'cosine' });
    const llm = new FakeLlm([], capabilityReply());
    const parts = orgDataParts({ llm, store, cluster: cluster() });
    const err = await rejection(parts.manage.execute({ dataType: 'capabilities', operation: 'scan' }));
    expect(err.message).to.contain('it holds 3-dimensional vectors, got 8');
    expect(llm.calls).to.have.length(0);
    expect(parts.states.lease).to.equal(undefined);
  });
});
