import { expect } from 'chai';
import { rolloutStatus } from '../../domain/cluster/rollout-status.js';
import { conditionMet } from '../../domain/cluster/wait-condition.js';
import { diffObjects, diffSegments } from '../../domain/operations/object-diff.js';
import { overallRisk } from '../../domain/operations/operation-plan.js';
import { rollbackAdvice, rollbackPatch } from '../../domain/operations/rollback.js';
import { deployment, rolledOut } from '../support/operate-fixtures.js';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };

describe('operations: field-level diff, rollback patch, rollout status (domain, pure)', () => {
  it('reports only the fields that changed, ignoring status and server metadata', () => {
    const live = deployment();
    const proposed = {
      ...deployment({ replicas: 5 }),
      metadata: { ...live.metadata, resourceVersion: '8', generation: 4, uid: 'other', managedFields: [{ manager: 'svc' }], creationTimestamp: 'later' },
      status: {},
    };
    expect(diffObjects(live, proposed)).to.deep.equal([{ path: 'spec.replicas', from: 2, to: 5 }]);
  });

  it('matches containers by name and quotes keys that are not identifiers', () => {
    const live = deployment();
    const proposed = deployment({ image: 'nginx:1.28' });
    (proposed.spec as any).template.metadata.annotations = { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00.000Z' };
    (proposed.spec as any).template.spec.containers.reverse(); // order alone is no change for named elements
    expect(diffObjects(live, proposed)).to.deep.equal([
      { path: 'spec.template.metadata.annotations', to: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00.000Z' } },
      { path: 'spec.template.spec.containers[name=web].image', from: 'nginx:1.27', to: 'nginx:1.28' },
    ]);
    const deeper = deployment();
    (deeper.metadata.annotations as any) = { 'a.b/c': '1', 'deployment.kubernetes.io/revision': '4' };
    expect(diffObjects(live, deeper)).to.deep.equal([{ path: 'metadata.annotations', to: { 'a.b/c': '1' } }]);
    const both = deployment();
    both.metadata.annotations = { 'a.b/c': '2' };
    expect(diffObjects(deeper, both)).to.deep.equal([{ path: 'metadata.annotations["a.b/c"]', from: '1', to: '2' }]);
  });

  it('diffs unnamed arrays by position, or whole when their lengths differ; a new object is all additions', () => {
    const a = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { list: [1, 2] } } as any;
    expect(diffObjects(a, { ...a, data: { list: [1, 3] } })).to.deep.equal([{ path: 'data.list[1]', from: 2, to: 3 }]);
    expect(diffObjects(a, { ...a, data: { list: [1] } })).to.deep.equal([{ path: 'data.list', from: [1, 2], to: [1] }]);
    expect(diffObjects(null, a)).to.deep.equal([
      { path: 'apiVersion', to: 'v1' },
      { path: 'data', to: { list: [1, 2] } },
      { path: 'kind', to: 'ConfigMap' },
      { path: 'metadata', to: { name: 'c' } },
    ]);
    expect(diffObjects(a, a)).to.deep.equal([]);
  });

  it('builds the rollback merge patch from the previous values: scalars as they were, arrays whole, new fields removed', () => {
    const before = deployment();
    const after = deployment({ replicas: 5, image: 'nginx:9.9' });
    (after.spec as any).template.metadata.annotations = { restarted: 'now' };
    after.metadata.labels = { app: 'web', tier: 'front' };
    const patch = rollbackPatch(before, diffSegments(before, after));
    expect(patch).to.deep.equal({
      metadata: { labels: { tier: null } },
      spec: { replicas: 2, template: { metadata: { annotations: null }, spec: { containers: (before.spec as any).template.spec.containers } } },
    });
    expect(rollbackPatch(before, diffSegments(before, { ...before, status: {} }))).to.equal(undefined);
    const advice = rollbackAdvice(ref, before, diffSegments(before, deployment({ replicas: 5 })))!;
    expect(advice.patch).to.deep.equal({ spec: { replicas: 2 } });
    expect(advice.kubectlUndo).to.equal('kubectl rollout undo deployment/web -n x');
    expect(advice.kubectlPatch).to.equal(`kubectl patch deployment.v1.apps/web -n x --type=strategic -p '{"spec":{"replicas":2}}'`);
    expect(advice.action).to.include({ type: 'patch', risk: 'medium' });
  });

  it('reads a rollout as kubectl rollout status does, and the rolloutFinished wait condition is met when it is done or has failed', () => {
    const done = deployment();
    expect(rolloutStatus(done)).to.include({ done: true, failed: false });
    expect(conditionMet(done, { type: 'rolloutFinished' })).to.equal(true);
    const scaling = { ...deployment({ replicas: 5 }), status: rolledOut(2, 3) };
    expect(rolloutStatus(scaling)).to.deep.include({ done: false, message: '2 of 5 new replicas updated' });
    expect(conditionMet(scaling, { type: 'rolloutFinished' })).to.equal(false);
    const stale = { ...deployment(), status: { ...rolledOut(2, 2) } };
    expect(rolloutStatus(stale).message).to.contain('observe');
    const old = { ...deployment(), status: { ...rolledOut(2, 3), replicas: 3 } };
    expect(rolloutStatus(old).message).to.equal('1 old replicas pending termination');
    const stuck = {
      ...deployment(),
      status: {
        ...rolledOut(2, 3),
        availableReplicas: 1,
        conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "web-1" has timed out progressing.' }],
      },
    };
    expect(rolloutStatus(stuck)).to.deep.include({ done: false, failed: true });
    expect(conditionMet(stuck, { type: 'rolloutFinished' })).to.equal(true);
    expect(rolloutStatus({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }).done).to.equal(true);
    expect(conditionMet(null, { type: 'rolloutFinished' })).to.equal(false);
  });

  it('never reports an overall risk below the riskiest action', () => {
    const action = (risk: 'low' | 'medium' | 'high') => ({ type: 'rolloutRestart' as const, target: ref, description: 'd', risk, rationale: 'r' });
    expect(overallRisk({ summary: 's', risk: 'low', actions: [action('low'), action('high')] })).to.equal('high');
    expect(overallRisk({ summary: 's', risk: 'medium', actions: [action('low')] })).to.equal('medium');
  });
});
