import { expect } from 'chai';
import { executeApproved } from '../../application/actions/execute-approved.js';
import { runOnce } from '../../application/actions/run-once.js';
import { decideAutoExecution } from '../../domain/actions/auto-execution.js';
import { clusterActionSchema, kubectlEquivalent, toOperation, type ClusterAction } from '../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { ValidationError } from '../../domain/errors.js';
import { readOnlyView } from '../../domain/ports/cluster-reader.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { guardOver, UNRECORDED } from '../fakes/null-safety.js';
import { FakeClock } from '../support/fake-clock.js';
import { rejection } from '../support/rejection.js';

const web: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'web', image: 'nginx:9.9' }] } } },
};
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const common = { description: 'fix', risk: 'low' as const, rationale: 'because' };

describe('cluster actions', () => {
  it('parse only as API operations with bounded bodies; anything else from a model is refused', () => {
    expect(clusterActionSchema.safeParse({ type: 'scale', target, replicas: 3, ...common }).success).to.equal(true);
    for (const bad of [
      { type: 'exec', command: 'kubectl delete ns prod', ...common },
      { type: 'patch', target, patch: {}, ...common },
      { type: 'patch', target, patch: { spec: { x: 'y'.repeat(20000) } }, ...common },
      { type: 'scale', target, replicas: -1, ...common },
      { type: 'delete', target, ...common, risk: 'none' },
      { type: 'apply', manifest: { kind: 'Pod' }, ...common },
    ]) {
      expect(clusterActionSchema.safeParse(bad).success, JSON.stringify(bad).slice(0, 60)).to.equal(false);
    }
  });

  it('turn scale and rollout restart into merge patches, a model patch into the type its kind takes, and show kubectl for people', () => {
    const now = new Date('2026-11-23T10:00:00Z');
    expect(toOperation({ type: 'scale', target, replicas: 3, ...common }, now)).to.deep.equal({
      method: 'patch',
      ref: target,
      patch: { spec: { replicas: 3 } },
      patchType: 'merge',
    });
    expect(toOperation({ type: 'rolloutRestart', target, ...common }, now)).to.deep.equal({
      method: 'patch',
      ref: target,
      patch: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-23T10:00:00.000Z' } } } } },
      patchType: 'merge',
    });
    // a patch the model wrote: strategic merge for a built-in kind, JSON merge for a custom resource, JSON Patch for operations
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'shop' };
    expect(toOperation({ type: 'patch', target, patch: { spec: { replicas: 2 } }, ...common }, now)).to.deep.include({ patchType: 'strategic' });
    expect(toOperation({ type: 'patch', target: widget, patch: { spec: { size: 2 } }, ...common }, now)).to.deep.include({ patchType: 'merge' });
    const ops = [{ op: 'replace' as const, path: '/spec/items/0/size', value: 2 }];
    expect(toOperation({ type: 'patch', target: widget, patch: ops, ...common }, now, '41')).to.deep.include({ patchType: 'json', resourceVersion: '41' });
    expect(kubectlEquivalent({ type: 'scale', target, replicas: 3, ...common })).to.equal('kubectl scale deployment.v1.apps/web -n shop --replicas=3');
    expect(kubectlEquivalent({ type: 'patch', target, patch: { spec: { replicas: 2 } }, ...common })).to.equal(
      `kubectl patch deployment.v1.apps/web -n shop --type=strategic -p '{"spec":{"replicas":2}}'`,
    );
  });

  it('dry-run every action before applying any; a refusal names the action and the server message, and nothing is applied', async () => {
    const cluster = new FakeCluster().put(web);
    cluster.rejectDryRun = (w) =>
      w.method === 'delete' ? { accepted: false, reason: 'Forbidden', message: 'admission webhook denied', causes: [] } : undefined;
    const actions: ClusterAction[] = [
      { type: 'patch', target, patch: { spec: { replicas: 2 } }, ...common },
      { type: 'delete', target, ...common, description: 'delete web' },
    ];
    const report = await executeApproved({ guard: guardOver(cluster), clock: new FakeClock() }, actions, [], UNRECORDED);
    expect(report.dryRunPassed).to.equal(false);
    expect(report.refused).to.deep.include({ action: 2, description: 'delete web', reason: 'Forbidden', message: 'admission webhook denied' });
    expect(cluster.writes).to.deep.equal([]);
    expect(report.outcomes.map((o) => o.status)).to.deep.equal(['not-run', 'not-run']);
  });

  it('apply in order after the dry runs; a failure stops the rest', async () => {
    const cluster = new FakeCluster().put(web);
    const ghost = { ...target, name: 'ghost' };
    cluster.rejectDryRun = () => undefined;
    const ok = await executeApproved(
      { guard: guardOver(cluster), clock: new FakeClock() },
      [{ type: 'scale', target, replicas: 4, ...common }],
      [],
      UNRECORDED,
    );
    expect(ok.outcomes[0].status).to.equal('applied');
    expect((cluster.objects.get('apps/v1/Deployment/shop/web')!.spec as { replicas: number }).replicas).to.equal(4);
    expect(cluster.calls.indexOf('dryRunPatch')).to.be.below(cluster.calls.indexOf('patch'));
    // a patch whose object vanishes between dry run and apply
    const flaky = new FakeCluster().put(web, { ...web, metadata: { name: 'ghost', namespace: 'shop' } });
    const origPatch = flaky.patch.bind(flaky);
    flaky.patch = async (ref, p) => (ref.name === 'ghost' ? Promise.reject(new ValidationError('gone')) : origPatch(ref, p));
    const r = await executeApproved(
      { guard: guardOver(flaky), clock: new FakeClock() },
      [
        { type: 'scale', target: ghost, replicas: 1, ...common },
        { type: 'scale', target, replicas: 2, ...common },
      ],
      [],
      UNRECORDED,
    );
    expect(r.outcomes.map((o) => o.status)).to.deep.equal(['failed', 'not-run']);
  });

  it('the automatic-mode rule needs the confidence and every risk within the limit', () => {
    const actions = [
      { risk: 'low' as const, description: 'a', target, sensitive: [], accepted: true },
      { risk: 'high' as const, description: 'b', target, sensitive: [], accepted: true },
    ];
    const rule = { confidenceThreshold: 0.8, namespacesNamed: ['shop'] };
    expect(decideAutoExecution({ ...rule, mode: 'manual', confidence: 1, maxRiskLevel: 'high', actions }).execute).to.equal(false);
    expect(decideAutoExecution({ ...rule, mode: 'automatic', confidence: 0.7, maxRiskLevel: 'high', actions }).reason).to.equal(
      'confidence 0.7 is below the threshold 0.8',
    );
    expect(decideAutoExecution({ ...rule, mode: 'automatic', confidence: 0.9, maxRiskLevel: 'medium', actions }).reason).to.equal(
      '1 action(s) exceed maxRiskLevel medium: b (high)',
    );
    expect(decideAutoExecution({ ...rule, mode: 'automatic', confidence: 0.9, maxRiskLevel: 'high', actions }).execute).to.equal(true);
  });

  it('the read-only view has the reader methods and nothing else', () => {
    const view = readOnlyView(new FakeCluster()) as unknown as Record<string, unknown>;
    for (const write of ['apply', 'patch', 'delete', 'dryRunApply', 'dryRunPatch', 'dryRunDelete', 'waitFor']) expect(view[write], write).to.equal(undefined);
    expect(Object.isFrozen(view)).to.equal(true);
  });
});

describe('runOnce', () => {
  it('executes a session once, also when two requests arrive together; the other gets the earlier outcome', async () => {
    const clock = new FakeClock();
    const store = new FakeSessionStore({ clock });
    const s = await store.create<{ plan: string; execution?: never }>('remediation', { plan: 'x' });
    let runs = 0;
    const work = async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 20));
      return { applied: 1 };
    };
    const results = await Promise.allSettled([runOnce(store, 'remediation', s, clock, work), runOnce(store, 'remediation', s, clock, work)]);
    expect(runs).to.equal(1);
    expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    const refused = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as ValidationError;
    expect(refused).to.be.instanceOf(ValidationError);
    const again = await store.get<{ execution: { status: string; outcome: unknown } }>('remediation', s.id);
    expect(again!.state.execution).to.deep.include({ status: 'done', outcome: { applied: 1 } });
    const third = await rejection<ValidationError>(runOnce(store, 'remediation', again as never, clock, work));
    expect(third.message).to.match(/was already executed \(done at /);
    expect(third.details).to.deep.include({ execution: again!.state.execution });
  });

  it('records a failed execution, which also never runs again', async () => {
    const clock = new FakeClock();
    const store = new FakeSessionStore({ clock });
    const s = await store.create<{ execution?: never }>('operation', {});
    await rejection(runOnce(store, 'operation', s, clock, async () => Promise.reject(new Error('apply failed'))));
    const after = await store.get<{ execution: { status: string; error: string } }>('operation', s.id);
    expect(after!.state.execution).to.deep.include({ status: 'failed', error: 'apply failed' });
  });
});
