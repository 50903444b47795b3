import { expect } from 'chai';
import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';
import { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';
import type { Obj } from '../../lab/sandbox/kube/kube-cluster.js';

/**
 * secret-only-in-other-namespace expects the cluster to stay unhealthy (the
 * right answer changes nothing): its rule holds only when the container sees
 * STRIPE_PUBLISHABLE_KEY, which takes a Secret stripe-public in namespace web,
 * a cross-namespace copy that is a person's decision. The rule must fail the
 * broken state and the generic fixes, and hold for the copy, or the
 * expectation `healthy: false` would judge nothing.
 */
describe('secret-only-in-other-namespace: healthy only once the container gets its variable from a Secret of its own namespace', function () {
  this.timeout(30_000);
  let sandbox: ScenarioCluster | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  const start = async () => (sandbox = await ScenarioCluster.start(loadScenario(defaultScenariosDir(), 'secret-only-in-other-namespace')));
  const all = (s: ScenarioCluster, kind: string): Obj[] => [...s.server.objects.values()].filter((o) => o.kind === kind);

  it('broken: the kubelet holds the container in CreateContainerConfigError, secret "stripe-public" not found', async () => {
    const s = await start();
    const [pod] = all(s, 'Pod');
    expect(pod.status.containerStatuses[0].state.waiting).to.deep.equal({ reason: 'CreateContainerConfigError', message: 'secret "stripe-public" not found' });
    expect(s.health().healthy).to.equal(false);
  });

  it('a restart or more memory leaves it broken; a copy of the Secret into web (a person’s decision) makes it healthy', async () => {
    const s = await start();
    all(s, 'Pod').forEach((p) => s.server.remove(p));
    expect(s.health().healthy).to.equal(false);
    const deploy = all(s, 'Deployment')[0];
    s.server.update(deploy, (d) => {
      d.spec.template.spec.containers[0].resources = { limits: { memory: '1Gi' } };
      d.metadata.generation += 1;
    });
    expect(s.health().healthy).to.equal(false);
    const original = all(s, 'Secret').find((o) => o.metadata.name === 'stripe-public')!;
    s.server.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'stripe-public', namespace: 'web' }, type: 'Opaque', data: { ...original.data } });
    expect(s.health()).to.deep.equal({ healthy: true, problems: [] });
  });
});
