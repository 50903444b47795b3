import { expect } from 'chai';
import { readyCounts, runAwareLlm, runAwareWriter, WAIT_SLICE_MS } from '../../../application/runs/run-aware-ports.js';
import { withinRun } from '../../../application/runs/run-scope.js';
import type { ResourceRef } from '../../../domain/cluster/kube-types.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { FakeLlm } from '../../fakes/fake-llm.js';
import { deployment } from '../../support/operate-fixtures.js';
import { rejection } from '../../support/rejection.js';

const WEB: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' };
const USER = [{ role: 'user' as const, content: 'hi' }];

/** A run scope whose events the test reads and whose cancel it pulls. */
function aRunScope() {
  const events: [string, Record<string, unknown>][] = [];
  const cancel = new AbortController();
  const inRun = <T>(work: () => Promise<T>) => withinRun({ signal: cancel.signal, progress: (type, data) => void events.push([type, data]) }, work);
  return { events, cancel, inRun };
}

describe('run-aware ports: inside a run every model call and write is an event, and none starts after a cancel', () => {
  describe('the model port', () => {
    it('outside a run is the port itself; inside one each call is a model-call event naming the model', async () => {
      const llm = new FakeLlm(['a', 'b']);
      const seen = runAwareLlm(llm);
      const { events, inRun } = aRunScope();
      expect((await seen.chat(USER)).text).to.equal('a');
      expect(events).to.deep.equal([]);
      expect((await inRun(() => seen.chat(USER, { model: 'big' }))).text).to.equal('b');
      expect(events).to.deep.equal([['model-call', { model: 'big' }]]);
      expect(seen.status()).to.deep.equal(llm.status());
    });

    it('a cancel aborts the call in flight, and no call starts after it', async () => {
      const llm = new FakeLlm(['hang']);
      const seen = runAwareLlm(llm);
      const { cancel, inRun } = aRunScope();
      const pending = inRun(() => seen.chat(USER));
      cancel.abort();
      await rejection(pending);
      // a cancel is the returned promise's rejection, never a throw at the call
      let call: Promise<unknown> | undefined;
      await inRun(async () => void (call = seen.chat(USER))).catch(() => undefined);
      expect(call).to.be.instanceOf(Promise);
      const err = await rejection(call!);
      expect(err.name).to.equal('CancelledError');
      expect(llm.calls).to.have.length(1);
    });
  });

  describe('the write port', () => {
    it('a write is recorded as it ended (applied or failed), a dry run with its verdict; outside a run nothing is recorded', async () => {
      const cluster = new FakeCluster().put(deployment());
      const writer = runAwareWriter(cluster);
      const { events, inRun } = aRunScope();
      await writer.patch(WEB, { spec: { replicas: 3 } });
      expect(events).to.deep.equal([]);
      await inRun(() => writer.dryRunPatch(WEB, { spec: { replicas: 4 } }));
      await inRun(() => writer.patch(WEB, { spec: { replicas: 4 } }));
      await rejection(inRun(() => writer.patch({ ...WEB, name: 'gone' }, { spec: { replicas: 1 } })));
      expect(events).to.deep.equal([
        ['dry-run', { method: 'patch', kind: 'Deployment', name: 'web', namespace: 'x', accepted: true }],
        ['applied', { method: 'patch', kind: 'Deployment', name: 'web', namespace: 'x', status: 'applied' }],
        ['applied', { method: 'patch', kind: 'Deployment', name: 'gone', namespace: 'x', status: 'failed' }],
      ]);
    });

    it('after a cancel no dry run, write or wait is sent', async () => {
      const cluster = new FakeCluster().put(deployment());
      const writer = runAwareWriter(cluster);
      const { cancel, inRun } = aRunScope();
      cancel.abort();
      const calls: (() => Promise<unknown>)[] = [
        () => writer.dryRunPatch(WEB, { spec: { replicas: 4 } }),
        () => writer.patch(WEB, { spec: { replicas: 4 } }),
        () => writer.waitFor(WEB, { type: 'exists' }, { timeoutMs: 1000 }),
      ];
      for (const call of calls) expect((await rejection(inRun(call))).name).to.equal('CancelledError');
      expect(cluster.calls).to.deep.equal([]);
    });

    it('a rollout wait is cut in slices of WAIT_SLICE_MS, each a waiting event with the ready counts, until the condition is met or the time is up', async () => {
      const cluster = new FakeCluster().put(deployment({ replicas: 3 }));
      const writer = runAwareWriter(cluster);
      const { events, inRun } = aRunScope();
      const timeoutMs = 2 * WAIT_SLICE_MS + 500;
      const unmet = await inRun(() => writer.waitFor(WEB, { type: 'condition', name: 'Degraded' }, { timeoutMs }));
      expect(unmet).to.deep.include({ met: false, elapsedMs: timeoutMs });
      expect(events.map(([type]) => type)).to.deep.equal(['waiting', 'waiting', 'waiting']);
      expect(events[0]![1]).to.deep.equal({ kind: 'Deployment', name: 'web', namespace: 'x', ready: 3, desired: 3, updated: 3, met: false });
      events.length = 0;
      expect(await inRun(() => writer.waitFor(WEB, { type: 'condition', name: 'Available' }, { timeoutMs }))).to.deep.include({ met: true });
      expect(events).to.have.length(1);
    });
  });

  it('readyCounts reads a workload as kubectl rollout status does (one replica when spec.replicas is unset), and nothing of a missing object', () => {
    expect(readyCounts(undefined)).to.deep.equal({});
    expect(readyCounts({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w' }, spec: {}, status: { readyReplicas: 0 } })).to.deep.equal({
      ready: 0,
      desired: 1,
      updated: 0,
    });
  });
});
