import { expect } from 'chai';
import type { LoadedScenario } from '../../lab/evaluation/scenario-loader.js';
import { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';
import { liveObject, objectsOf, syntheticScenario } from '../support/sandbox-scenario.js';

type Any = any;

/**
 * ResourceQuota admission in the sandbox (lab/sandbox/kube/kube-quotas.ts): a
 * pod that would take a simulated quota past its hard limits is not created,
 * the ReplicaSet says why as the real controller does, the quota's status
 * counts what is used, and a rollout whose surge pod does not fit stalls until
 * the strategy (or the quota) leaves room.
 */

const NS = 'search';
const IMAGE = 'registry.example/search/api:1';

const scenario = (objects: Any[]): LoadedScenario =>
  syntheticScenario({ name: 'quotas-under-test', namespace: NS, tag: 'quota', images: { [IMAGE]: 64, 'registry.example/search/api:2': 64 }, objects });

const quota = (hard: Record<string, string>, status?: Any) => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name: 'compute', namespace: NS },
  spec: { hard },
  ...(status ? { status } : {}),
});

const resources = { requests: { memory: '256Mi', cpu: '250m' }, limits: { memory: '256Mi' } };

const deployment = (replicas: number, extra: Any = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'api', namespace: NS },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'api' } },
    template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'api', image: IMAGE, resources }] } },
    ...extra,
  },
});

const all = objectsOf;
const live = liveObject;
const failedCreates = (s: ScenarioCluster): string[] =>
  all(s, 'Event')
    .filter((e) => e.reason === 'FailedCreate')
    .map((e) => e.message);

/** Changes the Deployment's spec as a write through the API would (a new generation), then lets the cluster settle. */
function edit(s: ScenarioCluster, change: (d: Any) => void): void {
  const d = live(s, 'Deployment', 'api');
  change(d);
  d.metadata.generation += 1;
  s.server.reconcile();
  s.server.settle(60);
}

describe('the sandbox enforces ResourceQuotas on the pods ReplicaSets create', function () {
  this.timeout(30_000);
  let sandbox: ScenarioCluster | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('pods within the quota are created; its status counts them (pods, requests, limits)', async () => {
    sandbox = await ScenarioCluster.start(
      scenario([quota({ pods: '4', 'requests.memory': '1Gi', 'requests.cpu': '2', 'limits.memory': '2Gi' }), deployment(3)]),
    );
    expect(all(sandbox, 'Pod')).to.have.length(3);
    expect(live(sandbox, 'ResourceQuota', 'compute').status.used).to.deep.equal({
      pods: '3',
      'requests.memory': '768Mi',
      'requests.cpu': '750m',
      'limits.memory': '768Mi',
    });
    expect(failedCreates(sandbox)).to.deep.equal([]);
    expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
  });

  it('a pod past the quota is not created: FailedCreate "exceeded quota" in the API server words, and the Deployment is not healthy', async () => {
    sandbox = await ScenarioCluster.start(scenario([quota({ pods: '2' }), deployment(3)]));
    expect(all(sandbox, 'Pod')).to.have.length(2);
    const [message] = failedCreates(sandbox);
    expect(message).to.match(/^Error creating: pods "api-[a-z0-9]+-" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2$/);
    expect(sandbox.health().problems.join('\n')).to.match(/Deployment search\/api/);
  });

  it('names every resource exceeded; a memory quota counts the sum of the containers', async () => {
    const d = deployment(2);
    d.spec.template.spec.containers.push({ name: 'sidecar', image: IMAGE, resources });
    sandbox = await ScenarioCluster.start(scenario([quota({ pods: '1', 'requests.memory': '768Mi' }), d]));
    expect(all(sandbox, 'Pod')).to.have.length(1);
    expect(failedCreates(sandbox)[0]).to.match(
      /exceeded quota: compute, requested: pods=1,requests.memory=512Mi, used: pods=1,requests.memory=512Mi, limited: pods=1,requests.memory=768Mi$/,
    );
  });

  it('a container without a resource the quota tracks is refused: "must specify"', async () => {
    const d = deployment(1);
    delete d.spec.template.spec.containers[0].resources.limits;
    sandbox = await ScenarioCluster.start(scenario([quota({ 'limits.memory': '2Gi' }), d]));
    expect(all(sandbox, 'Pod')).to.have.length(0);
    expect(failedCreates(sandbox)[0]).to.match(/is forbidden: failed quota: compute: must specify limits.memory$/);
  });

  it('a rollout whose surge pod does not fit stalls (maxUnavailable 0) and completes once the strategy lets an old pod go first', async () => {
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
    sandbox = await ScenarioCluster.start(scenario([quota({ pods: '3' }), deployment(3, { strategy })]));
    expect(sandbox.health().healthy).to.equal(true);
    edit(sandbox, (d) => (d.spec.template.spec.containers[0].image = 'registry.example/search/api:2'));
    expect(all(sandbox, 'Pod').every((p) => p.spec.containers[0].image === IMAGE)).to.equal(true);
    expect(failedCreates(sandbox).join('\n')).to.match(/exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3/);
    expect(sandbox.health().healthy).to.equal(false);
    edit(sandbox, (d) => (d.spec.strategy.rollingUpdate = { maxSurge: 0, maxUnavailable: 1 }));
    expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
    expect(all(sandbox, 'Pod').map((p) => p.spec.containers[0].image)).to.deep.equal(Array(3).fill('registry.example/search/api:2'));
  });

  it('a quota stored with its status (a fixture as written) is not enforced', async () => {
    sandbox = await ScenarioCluster.start(scenario([quota({ pods: '1' }, { hard: { pods: '1' }, used: { pods: '0' } }), deployment(3)]));
    expect(all(sandbox, 'Pod')).to.have.length(3);
    expect(live(sandbox, 'ResourceQuota', 'compute').status.used).to.deep.equal({ pods: '0' });
  });
});
