import { expect } from 'chai';
import { AwaitRollouts } from '../../application/actions/await-rollouts.js';
import { executeApproved } from '../../application/actions/execute-approved.js';
import type { ClusterAction } from '../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { rolloutStatus } from '../../domain/cluster/rollout-status.js';
import { readOnlyView } from '../../domain/ports/cluster-reader.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { guardOver, UNRECORDED } from '../fakes/null-safety.js';
import { InstantClock } from '../support/instant-clock.js';

const AGENT = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', namespace: 'monitoring' };

function daemonSet(image: string, status: Record<string, number>, generation = 2): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'monitoring', generation },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      updateStrategy: { type: 'RollingUpdate' },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image }] } },
    },
    status: { observedGeneration: generation, ...status },
  };
}

const setImage = (image: string): ClusterAction => ({
  type: 'patch',
  target: AGENT,
  patch: { spec: { template: { spec: { containers: [{ name: 'agent', image }] } } } },
  description: `Set the agent image to ${image}`,
  risk: 'medium',
  rationale: 'r',
});

describe('the rollout wait shared by operate and remediate (application/actions/await-rollouts)', () => {
  it('reads a DaemonSet rollout as kubectl does: observed, updated on every node, available', () => {
    expect(rolloutStatus(daemonSet('a:1', { desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 }))).to.deep.equal({
      done: true,
      failed: false,
      message: 'successfully rolled out (3 of 3 pods available)',
    });
    expect(rolloutStatus(daemonSet('a:1', { desiredNumberScheduled: 3, updatedNumberScheduled: 1, numberAvailable: 3 })).message).to.equal(
      '1 of 3 new pods updated',
    );
    expect(rolloutStatus(daemonSet('a:1', { desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 2 })).message).to.equal(
      '2 of 3 updated pods available',
    );
    const unobserved = { ...daemonSet('a:1', { desiredNumberScheduled: 3 }), metadata: { name: 'agent', generation: 3 } };
    expect(rolloutStatus(unobserved)).to.include({ done: false, message: 'waiting for the controller to observe the new spec' });
    const onDelete = daemonSet('a:1', { desiredNumberScheduled: 3, updatedNumberScheduled: 0 });
    (onDelete.spec as { updateStrategy: { type: string } }).updateStrategy.type = 'OnDelete';
    expect(rolloutStatus(onDelete).done).to.equal(true);
  });

  it('waits for a changed DaemonSet; one that does not finish comes with the rollback to its previous image', async () => {
    const cluster = new FakeCluster().put(daemonSet('agent:1', { desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 }));
    // the controller picks the change up but one node cannot run the new image
    cluster.onWrite = (o) => ({ ...o, status: { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 2 } });
    const rollouts = new AwaitRollouts(readOnlyView(cluster), cluster, { timeoutMs: 5000, intervalMs: 10 });
    const actions = [setImage('agent:2')];
    const baseline = await rollouts.baseline(actions);
    const report = await executeApproved({ guard: guardOver(cluster), clock: new InstantClock() }, actions, [], UNRECORDED);
    const [r] = await rollouts.wait(actions, report.outcomes, baseline, 60_000);
    expect(r).to.deep.include({ target: AGENT, state: 'timed-out', message: 'not rolled out within 5 s: 2 of 3 updated pods available' });
    expect(r.rollback?.patch).to.deep.equal({ spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:1' }] } } } });
    expect(r.rollback?.kubectlUndo).to.equal('kubectl rollout undo daemonset/agent -n monitoring');

    cluster.onWrite = (o) => ({ ...o, status: { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 } });
    const fixed = [setImage('agent:3')];
    const again = await executeApproved({ guard: guardOver(cluster), clock: new InstantClock() }, fixed, [], UNRECORDED);
    expect(await rollouts.wait(fixed, again.outcomes, await rollouts.baseline([]), 60_000)).to.deep.equal([
      { target: AGENT, state: 'rolled-out', message: 'successfully rolled out (3 of 3 pods available)', waitedMs: 0 },
    ]);
  });
});
