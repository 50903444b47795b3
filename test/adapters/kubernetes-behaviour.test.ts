import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import { ExecutionError } from '../../domain/errors.js';
import { KubernetesClusterClient } from '../../infrastructure/kubernetes/kubernetes-cluster-client.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { canonical } from '../../lab/sandbox/kube/kube-cluster.js';
import { rejection } from '../support/rejection.js';

type Any = any;

const WEB: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };

const deployment = (image: string, replicas = 2, extra: { memory?: string; progressDeadlineSeconds?: number } = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'x', labels: { app: 'web', team: 'a' } },
  spec: {
    replicas,
    ...(extra.progressDeadlineSeconds ? { progressDeadlineSeconds: extra.progressDeadlineSeconds } : {}),
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image, ...(extra.memory ? { resources: { limits: { memory: extra.memory } } } : {}) }] },
    },
  },
});

describe('KubernetesClusterClient against the behaving Kubernetes stand-in', () => {
  let server: KubeApiServer;
  let client: KubernetesClusterClient;
  let now = 0;

  const pods = async () => (await client.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'x', labelSelector: 'app=web' })).items as Any[];
  const deploy = async () => (await client.get(WEB)) as Any;
  const condition = (d: Any, type: string) => d.status.conditions.find((c: Any) => c.type === type);

  beforeEach(async () => {
    server = await KubeApiServer.start();
    const kc = new KubeConfig();
    kc.loadFromFile(server.writeKubeconfig());
    now = 0;
    client = new KubernetesClusterClient(kc, { requestTimeoutMs: 5000, now: () => now, sleep: async (ms) => void (now += ms) });
  });
  afterEach(() => server.close());

  describe('merge patch and dry runs', () => {
    it('strategic-merge-patches a built-in kind (null deletes, containers merge by name), bumping generation only on a spec change', async () => {
      const created = await client.apply(deployment('nginx:1.25'));
      const labelled = await client.patch(WEB, { metadata: { labels: { team: null, tier: 'front' } } });
      expect(labelled.metadata.labels).to.deep.equal({ app: 'web', tier: 'front' });
      expect(labelled.metadata.generation).to.equal(created.metadata.generation);
      expect(Number(labelled.metadata.resourceVersion)).to.be.greaterThan(Number(created.metadata.resourceVersion));
      const req = server.requests.filter((r) => r.method === 'PATCH').at(-1)!;
      expect(req.contentType).to.equal('application/strategic-merge-patch+json');
      expect(req.query.get('fieldManager')).to.equal('svc');
      expect(req.query.get('fieldValidation')).to.equal('Strict');
      expect(req.query.get('dryRun')).to.equal(null);
      const patched = await client.patch(WEB, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } });
      expect((patched.spec as Any).template.spec.containers).to.deep.equal([
        { name: 'app', image: 'nginx:1.25' },
        { name: 'web', image: 'nginx:1.27' },
      ]);
      const merged = await client.patch(WEB, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } }, { patchType: 'merge' });
      expect(server.requests.at(-1)!.contentType).to.equal('application/merge-patch+json');
      expect((merged.spec as Any).template.spec.containers).to.deep.equal([{ name: 'web', image: 'nginx:1.27' }]);
      expect((patched.spec as Any).selector).to.deep.equal({ matchLabels: { app: 'web' } });
      expect(patched.metadata.generation).to.equal(Number(created.metadata.generation) + 1);
      expect(merged.metadata.generation).to.equal(Number(created.metadata.generation) + 2);
    });

    it('dry-runs a patch, a delete and an apply without changing anything stored', async () => {
      await client.apply(deployment('nginx:1.25'));
      server.settle();
      const before = canonical([...server.objects]);
      const patch = await client.dryRunPatch(WEB, { spec: { replicas: 5 } });
      expect(patch.accepted && (patch.object.spec as Any).replicas).to.equal(5);
      expect(server.requests.at(-1)!.query.get('dryRun')).to.equal('All');
      const del = await client.dryRunDelete(WEB);
      expect(del.accepted && del.object.metadata.name).to.equal('web');
      expect(server.requests.at(-1)!.query.get('propagationPolicy')).to.equal('Background');
      const apply = await client.dryRunApply(deployment('nginx:9.9-missing', 7));
      expect(apply.accepted).to.equal(true);
      expect(canonical([...server.objects])).to.equal(before);
      expect((await deploy()).spec.replicas).to.equal(2);
    });

    it('gives NotFound verdicts for a missing object, and a patch of it throws', async () => {
      const gone = { ...WEB, name: 'gone' };
      expect(await client.dryRunPatch(gone, { spec: { replicas: 1 } })).to.deep.include({
        accepted: false,
        reason: 'NotFound',
        message: 'deployments.apps "gone" not found',
      });
      expect(await client.dryRunDelete(gone)).to.deep.include({ accepted: false, reason: 'NotFound' });
      const e = await rejection(client.patch(gone, { spec: { replicas: 1 } }));
      expect(e).to.be.instanceOf(ExecutionError);
      expect(e.message).to.contain('(404 NotFound): deployments.apps "gone" not found');
    });

    it('rejects a patch the server finds invalid with its 422 causes', async () => {
      await client.apply(deployment('nginx:1.25'));
      const verdict = await client.dryRunPatch(WEB, { spec: { selector: { matchLabels: { app: 'other' } } } });
      expect(verdict).to.deep.include({ accepted: false, reason: 'Invalid' });
      expect(!verdict.accepted && verdict.causes![0]).to.deep.include({ field: 'spec.selector' });
    });
  });

  describe('workloads that behave', () => {
    it('runs a Deployment as a ReplicaSet and ready pods with logs', async () => {
      await client.apply(deployment('nginx:1.25', 3));
      server.settle();
      const rs = (await client.list({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: 'x' })).items as Any[];
      expect(rs).to.have.length(1);
      const hash = rs[0].metadata.labels['pod-template-hash'];
      expect(rs[0].metadata.name).to.equal(`web-${hash}`);
      expect(rs[0].metadata.ownerReferences[0]).to.include({ kind: 'Deployment', name: 'web', controller: true });
      const running = await pods();
      expect(running).to.have.length(3);
      for (const p of running) {
        expect(p.metadata.name).to.match(new RegExp(`^web-${hash}-[a-z0-9]{5}$`));
        expect(p.metadata.labels).to.deep.equal({ app: 'web', 'pod-template-hash': hash });
        expect(p.metadata.ownerReferences[0]).to.include({ kind: 'ReplicaSet', name: `web-${hash}` });
        expect(p.status.phase).to.equal('Running');
        expect(p.status.conditions.find((c: Any) => c.type === 'Ready').status).to.equal('True');
      }
      expect(await client.logs({ namespace: 'x', pod: running[0].metadata.name })).to.contain('start worker processes');
      const prev = await rejection(client.logs({ namespace: 'x', pod: running[0].metadata.name, previous: true }));
      expect(prev.message).to.contain(`previous terminated container "app" in pod "${running[0].metadata.name}" not found`);
      const d = await deploy();
      expect(d.status).to.deep.include({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
      expect(condition(d, 'Available')).to.include({ status: 'True', reason: 'MinimumReplicasAvailable' });
      expect(condition(d, 'Progressing')).to.include({ status: 'True', reason: 'NewReplicaSetAvailable' });
    });

    it('shows a missing image as ImagePullBackOff pods with Failed and BackOff events', async () => {
      await client.apply(deployment('nginx:9.9-missing'));
      server.settle();
      const [p] = await pods();
      expect(p.status.phase).to.equal('Pending');
      expect(p.status.containerStatuses[0].state.waiting).to.deep.equal({ reason: 'ImagePullBackOff', message: 'Back-off pulling image "nginx:9.9-missing"' });
      const d = await client.describe({ apiVersion: 'v1', kind: 'Pod', name: p.metadata.name, namespace: 'x' });
      const failed = d!.events.find((e) => e.reason === 'Failed' && e.message.startsWith('Failed to pull image'))!;
      expect(failed.type).to.equal('Warning');
      expect(failed.message).to.match(/^Failed to pull image "nginx:9\.9-missing": .*docker\.io\/library\/nginx:9\.9-missing: not found$/);
      expect(d!.events.map((e) => e.reason)).to.include.members(['Scheduled', 'Pulling', 'BackOff']);
      expect(d!.events.find((e) => e.reason === 'BackOff')!.count).to.be.greaterThan(1);
      const viaEvents = await client.events({ namespace: 'x', involvedObject: { kind: 'Pod', name: p.metadata.name } });
      expect(viaEvents.every((e) => e.involvedObject.name === p.metadata.name)).to.equal(true);
      const logs = await rejection(client.logs({ namespace: 'x', pod: p.metadata.name }));
      expect(logs.message).to.contain('is waiting to start: trying and failing to pull image');
      expect(condition(await deploy(), 'Available')).to.include({ status: 'False', reason: 'MinimumReplicasUnavailable' });
    });

    it('shows a too-small memory limit as OOMKilled restarts with previous logs', async () => {
      await client.apply(deployment('redis:7', 1, { memory: '32Mi' }));
      server.settle();
      const [p] = await pods();
      const cs = p.status.containerStatuses[0];
      expect(p.status.phase).to.equal('Running');
      expect(cs.ready).to.equal(false);
      expect(cs.lastState.terminated).to.include({ reason: 'OOMKilled', exitCode: 137 });
      expect(cs.state.waiting.reason).to.equal('CrashLoopBackOff');
      const [again] = await pods();
      expect(again.status.containerStatuses[0].restartCount).to.be.greaterThan(cs.restartCount);
      expect(await client.logs({ namespace: 'x', pod: p.metadata.name, previous: true })).to.contain('Redis is starting');
      expect(await client.logs({ namespace: 'x', pod: p.metadata.name })).to.contain('Loading RDB');
      const events = await client.events({ namespace: 'x', involvedObject: { kind: 'Pod', name: p.metadata.name } });
      expect(events.find((e) => e.reason === 'BackOff')).to.deep.include({ type: 'Warning' });
      expect(events.find((e) => e.reason === 'BackOff')!.message).to.contain('Back-off restarting failed container app');
    });

    it('rolls out a fixed image with a patch until waitFor sees Available', async () => {
      await client.apply(deployment('nginx:9.9-missing'));
      server.settle();
      const bad = (await pods()).map((p) => p.metadata.name);
      await client.patch(WEB, { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } } });
      const r = await client.waitFor(WEB, { type: 'condition', name: 'Available' }, { timeoutMs: 60000, intervalMs: 1000 });
      expect(r.met).to.equal(true);
      expect(r.elapsedMs).to.be.greaterThan(1000); // it took several polls: the rollout moves one pod per read
      server.settle();
      const d = await deploy();
      expect(d.metadata.annotations['deployment.kubernetes.io/revision']).to.equal('2');
      expect(condition(d, 'Progressing')).to.include({ reason: 'NewReplicaSetAvailable' });
      const now2 = await pods();
      expect(now2).to.have.length(2);
      expect(now2.map((p) => p.metadata.name)).not.to.include.members(bad);
      expect(now2.every((p) => p.spec.containers[0].image === 'nginx:1.27' && p.status.phase === 'Running')).to.equal(true);
      const sets = (await client.list({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: 'x' })).items as Any[];
      expect(sets.map((s) => s.spec.replicas).sort()).to.deep.equal([0, 2]);
    });

    it('scales with a patch, recreates a deleted pod and deletes everything with the Deployment', async () => {
      await client.apply(deployment('nginx:1.25', 2));
      await client.patch(WEB, { spec: { replicas: 4 } });
      expect(await pods()).to.have.length(4);
      await client.patch(WEB, { spec: { replicas: 1 } });
      const [only] = await pods();
      expect(await pods()).to.have.length(1);
      expect(await client.delete({ apiVersion: 'v1', kind: 'Pod', name: only.metadata.name, namespace: 'x' })).to.equal(true);
      const [replacement] = await pods();
      expect(replacement.metadata.name).not.to.equal(only.metadata.name);
      expect(await client.delete(WEB)).to.equal(true);
      expect(await pods()).to.deep.equal([]);
      expect((await client.list({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: 'x' })).items).to.deep.equal([]);
    });

    it('stalls a rollout to a bad image with the old pods serving, then reports ProgressDeadlineExceeded', async () => {
      await client.apply(deployment('nginx:1.25', 2, { progressDeadlineSeconds: 60 }));
      server.settle();
      await client.patch(WEB, { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.26-typo' }] } } } });
      server.settle();
      const all = await pods();
      expect(all).to.have.length(3);
      expect(all.filter((p) => p.status.phase === 'Running')).to.have.length(2);
      server.tick(8);
      const d = await deploy();
      expect(d.status).to.include({ replicas: 3, updatedReplicas: 1, availableReplicas: 2, unavailableReplicas: 1 });
      expect(condition(d, 'Available')).to.include({ status: 'True' });
      expect(condition(d, 'Progressing')).to.include({ status: 'False', reason: 'ProgressDeadlineExceeded' });
      const pulled = server.knownImages.set('nginx:1.26-typo', 24);
      expect(pulled.size).to.be.greaterThan(1);
      server.settle();
      expect(condition(await deploy(), 'Progressing')).to.include({ status: 'True', reason: 'NewReplicaSetAvailable' });
    });
  });
});
