import { expect } from 'chai';
import { defaultScenariosDir, loadScenario, type LoadedScenario } from '../../lab/evaluation/scenario-loader.js';
import { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';
import { liveObject, objectsOf, syntheticScenario } from '../support/sandbox-scenario.js';

type Any = any;

/**
 * Jobs, init containers and DaemonSets in the sandbox, judged by behaviour:
 * each kind both ways (broken, then healthy once what its rule reads is fixed,
 * whatever way the fix is written).
 */

const NS = 'batch';
const cm = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: NS }, data });
const MODE = { object: { kind: 'ConfigMap', namespace: NS, name: 'settings' }, path: 'data.MODE', oneOf: ['full', 'incremental'] };

const scenario = (objects: Any[], rules: Any[] = []): LoadedScenario =>
  syntheticScenario({
    name: 'kinds-under-test',
    namespace: NS,
    tag: 'crashloop',
    images: { 'registry.example/tools:1': 16, 'registry.example/agent:1': 16 },
    objects,
    rules,
  });

const crashUnlessMode = (workload: Any, container?: string) => ({
  description: 'runs once MODE is a mode it knows',
  workload,
  ...(container ? { container } : {}),
  healthyWhen: [MODE],
  whileBroken: { crash: { exitCode: 2, log: 'unknown MODE "fast": expected full or incremental\n' } },
});

const job = (extra: Any = {}) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'backfill', namespace: NS },
  spec: {
    backoffLimit: 100,
    template: {
      metadata: { labels: { app: 'backfill' } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'backfill', image: 'registry.example/tools:1' }] },
    },
    ...extra,
  },
});

const nodes = ['node-a', 'node-b', 'node-c'].map((name, i) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, pool: i === 2 ? 'gpu' : 'general' } },
  spec: i === 2 ? { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] } : {},
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
}));

const daemonSet = (tolerations: Any[] = []) => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'log-agent', namespace: NS },
  spec: {
    selector: { matchLabels: { app: 'log-agent' } },
    template: {
      metadata: { labels: { app: 'log-agent' } },
      spec: { tolerations, containers: [{ name: 'agent', image: 'registry.example/agent:1' }] },
    },
  },
});

const deploymentWithInit = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: NS },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        initContainers: [{ name: 'migrate', image: 'registry.example/tools:1' }],
        containers: [{ name: 'web', image: 'registry.example/agent:1' }],
      },
    },
  },
});

const all = objectsOf;
const live = liveObject;

describe('the sandbox simulates Jobs, init containers and DaemonSets', function () {
  this.timeout(30_000);
  let sandbox: ScenarioCluster | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  describe('Jobs', () => {
    it('a Job whose pod runs to completion is Complete, its pod Succeeded, and healthy', async () => {
      sandbox = await ScenarioCluster.start(scenario([cm({ MODE: 'full' }), job()], [crashUnlessMode({ kind: 'Job', namespace: NS, name: 'backfill' })]));
      const j = live(sandbox, 'Job', 'backfill');
      expect(j.status.succeeded).to.equal(1);
      expect(j.status.conditions.map((c: Any) => c.type)).to.include('Complete');
      const [pod] = all(sandbox, 'Pod');
      expect(pod.status.phase).to.equal('Succeeded');
      expect(pod.metadata.labels['job-name']).to.equal('backfill');
      expect(pod.status.containerStatuses[0].state.terminated).to.include({ exitCode: 0, reason: 'Completed' });
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
    });

    it('a failing Job makes one Failed pod per try and is not healthy; fixing what it reads completes it', async () => {
      sandbox = await ScenarioCluster.start(scenario([cm({ MODE: 'fast' }), job()], [crashUnlessMode({ kind: 'Job', namespace: NS, name: 'backfill' })]));
      const failedPods = all(sandbox, 'Pod').filter((p) => p.status.phase === 'Failed');
      expect(failedPods.length).to.be.greaterThan(2);
      expect(failedPods[0].status.containerStatuses[0].state.terminated).to.include({ exitCode: 2 });
      expect(sandbox.server.logs.get(`${NS}/${failedPods[0].metadata.name}/backfill`)).to.contain('unknown MODE');
      const report = sandbox.health();
      expect(report.healthy).to.equal(false);
      expect(report.problems.join('\n')).to.match(/Job batch\/backfill has not completed/);
      live(sandbox, 'ConfigMap', 'settings').data.MODE = 'incremental';
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
      expect(live(sandbox, 'Job', 'backfill').status.succeeded).to.equal(1);
    });

    it('past its backoffLimit a Job is Failed (BackoffLimitExceeded) and stays failed: a later fix does not rerun it', async () => {
      sandbox = await ScenarioCluster.start(
        scenario([cm({ MODE: 'fast' }), job({ backoffLimit: 2 })], [crashUnlessMode({ kind: 'Job', namespace: NS, name: 'backfill' })]),
      );
      const j = live(sandbox, 'Job', 'backfill');
      expect(j.status.failed).to.equal(3);
      expect(j.status.conditions.find((c: Any) => c.type === 'Failed')).to.include({ reason: 'BackoffLimitExceeded' });
      expect(all(sandbox, 'Event').some((e) => e.reason === 'BackoffLimitExceeded' && e.type === 'Warning')).to.equal(true);
      live(sandbox, 'ConfigMap', 'settings').data.MODE = 'full';
      const report = sandbox.health();
      expect(report.healthy).to.equal(false);
      expect(report.problems.join('\n')).to.match(/failed: Job has reached the specified backoff limit/);
    });

    it('restartPolicy OnFailure restarts the container in place and counts each restart toward the backoffLimit', async () => {
      const onFailure = job({ backoffLimit: 1 });
      onFailure.spec.template.spec.restartPolicy = 'OnFailure';
      sandbox = await ScenarioCluster.start(scenario([cm({ MODE: 'fast' }), onFailure], [crashUnlessMode({ kind: 'Job', namespace: NS, name: 'backfill' })]));
      expect(live(sandbox, 'Job', 'backfill').status.conditions.find((c: Any) => c.type === 'Failed')).to.include({ reason: 'BackoffLimitExceeded' });
      expect(all(sandbox, 'Event').some((e) => e.reason === 'BackOff')).to.equal(true);
    });

    it('completions and parallelism: three completions, two at a time', async () => {
      sandbox = await ScenarioCluster.start(scenario([cm({ MODE: 'full' }), job({ completions: 3, parallelism: 2 })]));
      expect(live(sandbox, 'Job', 'backfill').status.succeeded).to.equal(3);
      expect(all(sandbox, 'Pod').filter((p) => p.status.phase === 'Succeeded')).to.have.length(3);
    });
  });

  describe('init containers', () => {
    it('a failing init container blocks the pod: Pending, Initialized False, app container PodInitializing; not healthy', async () => {
      sandbox = await ScenarioCluster.start(
        scenario([cm({ MODE: 'fast' }), deploymentWithInit()], [crashUnlessMode({ kind: 'Deployment', namespace: NS, name: 'web' }, 'migrate')]),
      );
      const pods = all(sandbox, 'Pod');
      expect(pods).to.have.length(2);
      for (const pod of pods) {
        expect(pod.status.phase).to.equal('Pending');
        expect(pod.status.conditions.find((c: Any) => c.type === 'Initialized')).to.include({ status: 'False', reason: 'ContainersNotInitialized' });
        expect(pod.status.initContainerStatuses[0].state.waiting.reason).to.equal('CrashLoopBackOff');
        expect(pod.status.initContainerStatuses[0].restartCount).to.be.greaterThan(0);
        expect(pod.status.containerStatuses[0].state.waiting.reason).to.equal('PodInitializing');
      }
      expect(sandbox.server.previousLogs.get(`${NS}/${pods[0].metadata.name}/migrate`)).to.contain('unknown MODE');
      expect(sandbox.health().healthy).to.equal(false);
    });

    it('once the init container can complete, it ends Completed and the app container runs: healthy', async () => {
      sandbox = await ScenarioCluster.start(
        scenario([cm({ MODE: 'fast' }), deploymentWithInit()], [crashUnlessMode({ kind: 'Deployment', namespace: NS, name: 'web' }, 'migrate')]),
      );
      live(sandbox, 'ConfigMap', 'settings').data.MODE = 'full';
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
      for (const pod of all(sandbox, 'Pod')) {
        expect(pod.status.initContainerStatuses[0].state.terminated).to.include({ exitCode: 0, reason: 'Completed' });
        expect(pod.status.phase).to.equal('Running');
      }
    });

    it('an init container whose image cannot be pulled blocks the pod too', async () => {
      const d = deploymentWithInit();
      d.spec.template.spec.initContainers[0].image = 'registry.example/tools:404';
      sandbox = await ScenarioCluster.start(scenario([d]));
      const [pod] = all(sandbox, 'Pod');
      expect(pod.status.initContainerStatuses[0].state.waiting.reason).to.equal('ImagePullBackOff');
      expect(pod.status.containerStatuses[0].state.waiting.reason).to.equal('PodInitializing');
      expect(sandbox.health().healthy).to.equal(false);
    });
  });

  describe('DaemonSets', () => {
    it('one pod per Node it fits, bound to that node; a tainted node without a toleration gets none; healthy when all are ready', async () => {
      sandbox = await ScenarioCluster.start(scenario([...nodes, daemonSet()]));
      const pods = all(sandbox, 'Pod');
      expect(pods.map((p) => p.spec.nodeName).sort()).to.deep.equal(['node-a', 'node-b']);
      const ds = live(sandbox, 'DaemonSet', 'log-agent');
      expect(ds.status).to.include({ desiredNumberScheduled: 2, numberReady: 2, updatedNumberScheduled: 2 });
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
    });

    it('a toleration puts a pod on the tainted node as well', async () => {
      sandbox = await ScenarioCluster.start(scenario([...nodes, daemonSet([{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }])]));
      expect(
        all(sandbox, 'Pod')
          .map((p) => p.spec.nodeName)
          .sort(),
      ).to.deep.equal(['node-a', 'node-b', 'node-c']);
    });

    it('a crashing DaemonSet is not healthy; a template change rolls every node over and then it is', async () => {
      const ds = daemonSet();
      ds.spec.template.spec.containers[0].image = 'registry.example/agent:2';
      sandbox = await ScenarioCluster.start(scenario([...nodes, ds]));
      const report = sandbox.health();
      expect(report.healthy).to.equal(false);
      expect(report.problems.join('\n')).to.match(/DaemonSet batch\/log-agent: 0 of 2/);
      live(sandbox, 'DaemonSet', 'log-agent').spec.template.spec.containers[0].image = 'registry.example/agent:1';
      live(sandbox, 'DaemonSet', 'log-agent').metadata.generation = 2;
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
      expect(all(sandbox, 'Pod').every((p) => p.spec.containers[0].image === 'registry.example/agent:1')).to.equal(true);
    });
  });

  describe('fix by behaviour: every valid fix passes', () => {
    for (const [image, healthy] of [
      ['registry.example/shop/api:2.3.1', true],
      ['registry.example/shop/api:2.3.0', true],
      ['registry.example/shop/api:2.4.1', false],
    ] as const)
      it(`image-rc-tag-not-pushed with ${image.split(':')[1]} (${healthy ? 'a tag the registry has' : 'a tag it lacks'}): ${healthy ? 'healthy' : 'not healthy'}`, async () => {
        sandbox = await ScenarioCluster.start(loadScenario(defaultScenariosDir(), 'image-rc-tag-not-pushed'));
        const d = live(sandbox, 'Deployment', 'api');
        d.spec.template.spec.containers[0].image = image;
        d.metadata.generation += 1;
        sandbox.server.reconcile();
        expect(sandbox.health().healthy).to.equal(healthy);
      });
  });
});
