import { expect } from 'chai';
import { fieldCondition } from '../../domain/evaluation/scenario.js';
import { behaviourHolds, connectionTarget, runsFile } from '../../lab/sandbox/behaviour-conditions.js';
import { envValue } from '../../lab/sandbox/container-env.js';
import { KubeCluster, type Obj } from '../../lab/sandbox/kube/kube-cluster.js';
import { nodesFitting, unschedulableMessage } from '../../lab/sandbox/kube/kube-scheduler.js';

type Any = any;

/** A cluster holding these objects as fixtures (nothing simulated). */
function cluster(...objects: Obj[]): KubeCluster {
  const c = new KubeCluster();
  for (const o of objects) c.put(structuredClone(o));
  return c;
}

const deployment = (name: string, pod: Obj, labels: Record<string, string> = { app: name }): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop' },
  spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: pod } },
});
const withEnv = (...env: Obj[]) => deployment('bff', { containers: [{ name: 'bff', image: 'bff:1', env }] });
const service = (name: string, ports: number[], selector: Record<string, string> = { app: name }, namespace = 'shop'): Obj => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace },
  spec: { selector, ports: ports.map((port) => ({ port })) },
});
const configMap = (name: string, data: Record<string, string>): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data });
const secret = (name: string, data: Record<string, string>): Obj => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'shop' },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});
const live = (c: KubeCluster, kind: string, name: string) => [...c.objects.values()].find((o) => o.kind === kind && o.metadata.name === name);
const holds = (c: KubeCluster, cond: Obj, kind = 'Deployment', name = 'bff') => behaviourHolds(c, fieldCondition.parse(cond), live(c, kind, name));

describe('behaviour conditions: health judged on what the workload does, so every valid fix passes', () => {
  describe('env: the value the container sees', () => {
    const podSpec = (c: KubeCluster) => live(c, 'Deployment', 'bff')!.spec.template.spec;

    it('reads a literal, a ConfigMap key, a Secret key (decoded) and envFrom with its prefix; env wins over envFrom', () => {
      const c = cluster(
        configMap('settings', { LEVEL: 'debug', URL: 'http://a' }),
        secret('creds', { key: 's3cret' }),
        deployment('bff', {
          containers: [
            {
              name: 'bff',
              envFrom: [{ configMapRef: { name: 'settings' } }, { prefix: 'APP_', configMapRef: { name: 'settings' } }],
              env: [
                { name: 'PLAIN', value: 'x' },
                { name: 'FROM_CM', valueFrom: { configMapKeyRef: { name: 'settings', key: 'URL' } } },
                { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'creds', key: 'key' } } },
                { name: 'LEVEL', value: 'info' },
              ],
            },
          ],
        }),
      );
      const read = (name: string) => envValue(c, 'shop', podSpec(c), name, 'bff');
      expect(['PLAIN', 'FROM_CM', 'FROM_SECRET', 'LEVEL', 'URL', 'APP_URL'].map(read)).to.deep.equal([
        'x',
        'http://a',
        's3cret',
        'info',
        'http://a',
        'http://a',
      ]);
      expect(holds(c, { env: { name: 'FROM_SECRET' }, equals: 's3cret' })).to.equal(true);
    });

    it('is absent when its ConfigMap, Secret or key does not exist: exists fails, exists: false holds', () => {
      const c = cluster(
        configMap('settings', { vat_rate: '0.21' }),
        withEnv({ name: 'VAT_RATE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'vat-rate' } } }),
      );
      expect(envValue(c, 'shop', podSpec(c), 'VAT_RATE')).to.equal(undefined);
      expect(holds(c, { env: { name: 'VAT_RATE' }, exists: true })).to.equal(false);
      expect(holds(c, { env: { name: 'VAT_RATE' }, exists: false })).to.equal(true);
      // the fix by renaming the reference and the fix by adding the key both pass
      live(c, 'ConfigMap', 'settings')!.data['vat-rate'] = '0.21';
      expect(holds(c, { env: { name: 'VAT_RATE' }, equals: '0.21' })).to.equal(true);
    });

    it('sameAs: equals a ConfigMap or Secret key however the container gets it (literal, another key, envFrom); never states the value', () => {
      const sameAs = { env: { name: 'DB_PASSWORD' }, sameAs: { kind: 'Secret', name: 'db', key: 'password' } };
      const judge = (...env: Obj[]) =>
        holds(cluster(secret('db', { password: 'pw-1', user: 'app' }), secret('db-copy', { pw: 'pw-1' }), withEnv(...env)), sameAs);
      expect(judge({ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } })).to.equal(true);
      expect(judge({ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db-copy', key: 'pw' } } })).to.equal(true);
      expect(judge({ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'user' } } })).to.equal(false);
      expect(judge({ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'PASSWORD' } } })).to.equal(false);
      expect(judge()).to.equal(false);
    });
  });

  describe('runs: the command line names the file, as the kubelet and the shell resolve it', () => {
    const judge = (container: Obj, file = '/app/scheduler.py') => runsFile({ containers: [{ name: 'c', ...container }] }, 'c', file);

    it('an absolute path, a relative one from workingDir, and an executable on the PATH pass; the broken and wrong fixes fail', () => {
      expect(judge({ command: ['python', '/app/scheduler.py'] })).to.equal(true);
      expect(judge({ command: ['python', 'scheduler.py'], workingDir: '/app' })).to.equal(true);
      expect(judge({ command: ['python'], args: ['-u', './scheduler.py'], workingDir: '/app' })).to.equal(true);
      expect(judge({ command: ['thumbnailer'] }, '/usr/local/bin/thumbnailer')).to.equal(true);
      expect(judge({ command: ['/usr/local/bin/thumbnailer'] }, '/usr/local/bin/thumbnailer')).to.equal(true);
      // the broken one (run from /), a restart-like no-op, a flag, another file, a misspelt binary
      expect(judge({ command: ['python', 'scheduler.py'] })).to.equal(false);
      expect(judge({ command: ['python', 'scheduler.py'], workingDir: '/srv' })).to.equal(false);
      expect(judge({ command: ['python', '--file=/app/scheduler.py'] })).to.equal(false);
      expect(judge({ command: ['python', '/app/other.py'] })).to.equal(false);
      expect(judge({ command: ['/usr/local/bin/thumbnailr'] }, '/usr/local/bin/thumbnailer')).to.equal(false);
      // a bare name is looked up on the PATH only as the executable, not as a script argument
      expect(judge({ command: ['python', 'thumbnailer'] }, '/usr/local/bin/thumbnailer')).to.equal(false);
      expect(judge({}, '/usr/local/bin/thumbnailer')).to.equal(false);
    });

    it('is a condition of the scenario format, judged on the workload', () => {
      const c = cluster(deployment('bff', { containers: [{ name: 'bff', image: 'bff:1', command: ['node', 'server.js'], workingDir: '/srv' }] }));
      expect(holds(c, { runs: { file: '/srv/server.js' } })).to.equal(true);
      expect(holds(c, { runs: { file: '/app/server.js' } })).to.equal(false);
      expect(fieldCondition.safeParse({ runs: { file: 'server.js' } }).success).to.equal(false);
      expect(fieldCondition.safeParse({ runs: { file: '/srv/server.js' }, path: 'spec.replicas' }).success).to.equal(false);
    });
  });

  describe('reaches: the value names a Service by cluster DNS and a port it serves', () => {
    const reaches = { service: 'catalog', port: 5432 };
    const target = (value: string, ...more: Obj[]) =>
      holds(cluster(service('catalog', [80]), service('orders', [80], { app: 'orders' }, 'other'), ...more, withEnv({ name: 'API_URL', value })), {
        env: { name: 'API_URL' },
        reaches,
      });

    it('passes every spelling of the Service and port (short, name.ns, .svc, FQDN, the scheme default, a path); fails the container port, another Service or namespace, a name outside the cluster', () => {
      const verdicts: Record<string, boolean> = {
        'http://catalog': true,
        'http://catalog:80': true,
        'http://catalog.shop/': true,
        'http://catalog.shop.svc:80/v1': true,
        'http://user:pw@catalog.shop.svc.cluster.local:80': true,
        'http://catalog:8080': false,
        'http://orders.other': false,
        'http://catalog.other': false,
        'https://catalog.example.com': false,
        'catalog.shop.svc.cluster': false,
        'not a url': false,
      };
      for (const [value, ok] of Object.entries(verdicts)) expect(target(value), value).to.equal(ok);
    });

    it("uses the condition's port when the value names none and its scheme has no default; reads the value from a ConfigMap too", () => {
      const c = cluster(
        service('catalog', [5432]),
        configMap('db', { HOST: 'catalog.shop' }),
        withEnv({ name: 'DB_HOST', valueFrom: { configMapKeyRef: { name: 'db', key: 'HOST' } } }),
      );
      expect(holds(c, { env: { name: 'DB_HOST' }, reaches })).to.equal(true);
      expect(holds(c, { env: { name: 'DB_HOST' }, reaches: { service: 'catalog', port: 6432 } })).to.equal(false);
      // a Service that moved its port: the client's port must follow
      live(c, 'Service', 'catalog')!.spec.ports = [{ port: 6432 }];
      expect(holds(c, { env: { name: 'DB_HOST' }, reaches })).to.equal(false);
    });

    it("judges a ConfigMap field the pods read (path) from the ConfigMap's namespace", () => {
      const c = cluster(service('redis', [6379]), configMap('cart', { REDIS_URL: 'redis://redis.shop.svc:6380/0' }));
      const cond = { object: { kind: 'ConfigMap', namespace: 'shop', name: 'cart' }, path: 'data.REDIS_URL', reaches: { service: 'redis' } };
      expect(holds(c, cond, 'ConfigMap', 'cart')).to.equal(false);
      live(c, 'ConfigMap', 'cart')!.data.REDIS_URL = 'redis://redis';
      expect(holds(c, cond, 'ConfigMap', 'cart')).to.equal(true);
    });

    it('reads host and port from connection strings', () => {
      expect(connectionTarget('redis://:pw@redis-cart.shop:6379/0')).to.deep.equal({ host: 'redis-cart.shop', port: 6379 });
      expect(connectionTarget('postgres://u@db/app')).to.deep.equal({ host: 'db', port: 5432 });
      expect(connectionTarget('db.data:5433')).to.deep.equal({ host: 'db.data', port: 5433 });
      expect(connectionTarget('db')).to.deep.equal({ host: 'db' });
    });
  });

  describe('selects: the Service selects the workload’s pods', () => {
    const web = { object: { kind: 'Service', namespace: 'shop', name: 'web' }, selects: { kind: 'Deployment', name: 'web' } };
    const judge = (selector: Record<string, string>, cond: Obj = web) =>
      holds(
        cluster(
          service('web', [80], selector),
          deployment('web', { containers: [] }, { app: 'web', track: 'stable' }),
          deployment('web-canary', { containers: [] }, { app: 'web', track: 'canary' }),
        ),
        cond,
        'Service',
        'web',
      );

    it('passes any selector that picks the pods (a subset of their labels); fails a label they lack and an empty selector', () => {
      expect(judge({ app: 'web' })).to.equal(true);
      expect(judge({ app: 'web', track: 'stable' })).to.equal(true);
      expect(judge({ app: 'webb' })).to.equal(false);
      expect(judge({})).to.equal(false);
    });

    it("only: also selects no other workload's pods (the canary)", () => {
      const only = { ...web, selects: { ...web.selects, only: true } };
      expect(judge({ app: 'web' }, only)).to.equal(false);
      expect(judge({ app: 'web', track: 'stable' }, only)).to.equal(true);
    });
  });

  describe('schedules, and the scheduler: pods fit a Node by selector, affinity, taints and requests', () => {
    const node = (name: string, labels: Record<string, string>, taints: Obj[] = [], allocatable = { cpu: '4', memory: '8Gi' }): Obj => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels },
      spec: { taints },
      status: { allocatable },
    });
    const gpuTaint = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };
    const toleration = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };
    const nodes = [node('gpu-1', { pool: 'gpu' }, [gpuTaint]), node('gpu-2', { pool: 'gpu' }, [gpuTaint]), node('worker-1', { pool: 'general' })];
    const trainer = (pod: Obj) => cluster(...nodes, deployment('trainer', { containers: [{ name: 't', image: 't:1' }], ...pod }));
    const onGpu = (pod: Obj) => holds(trainer(pod), { schedules: { nodeLabels: { pool: 'gpu' } } }, 'Deployment', 'trainer');

    it('passes a toleration with the selector, or with a required node affinity instead; fails the broken pod and the toleration alone', () => {
      expect(onGpu({ nodeSelector: { pool: 'gpu' } })).to.equal(false);
      expect(onGpu({ nodeSelector: { pool: 'gpu' }, tolerations: [toleration] })).to.equal(true);
      const affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['gpu'] }] }] },
        },
      };
      expect(onGpu({ affinity, tolerations: [toleration] })).to.equal(true);
      // tolerating the taint without choosing the pool lands it on general nodes too
      expect(onGpu({ tolerations: [toleration] })).to.equal(false);
    });

    it('weighs requests against allocatable: too large a request fits nowhere', () => {
      const big = { containers: [{ name: 't', image: 't:1', resources: { requests: { cpu: '6' } } }] };
      expect(holds(trainer(big), { schedules: {} }, 'Deployment', 'trainer')).to.equal(false);
      expect(holds(trainer({ containers: [{ name: 't', resources: { requests: { cpu: '500m' } } }] }), { schedules: {} }, 'Deployment', 'trainer')).to.equal(
        true,
      );
    });

    it("says why no node fits, as kube-scheduler's FailedScheduling does", () => {
      const c = cluster(...nodes);
      expect(unschedulableMessage(c, { nodeSelector: { pool: 'gpu' } })).to.equal(
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) had untolerated taint {nvidia.com/gpu: present}. " +
          'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
      );
      expect(unschedulableMessage(c, { containers: [{ resources: { requests: { memory: '16Gi' } } }] })).to.equal(
        '0/3 nodes are available: 1 Insufficient memory, 2 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
      );
      expect(unschedulableMessage(c, {})).to.equal(undefined);
      expect(nodesFitting(c, {})).to.deep.equal(['worker-1']);
    });

    it('a pod that fits no Node stays Pending, unbound, with FailedScheduling; it is bound once the workload is fixed', () => {
      const c = trainer({ nodeSelector: { pool: 'gpu' } });
      c.objects.delete([...c.objects].find(([, o]) => o.kind === 'Deployment')![0]);
      const d = deployment('trainer', { nodeSelector: { pool: 'gpu' }, containers: [{ name: 't', image: 'nginx:1.25' }] });
      (d.spec as Any).replicas = 1;
      c.create(d);
      c.settle(10);
      const pod = () => [...c.objects.values()].find((o) => o.kind === 'Pod')!;
      expect(pod().spec.nodeName).to.equal(undefined);
      expect(pod().status.phase).to.equal('Pending');
      expect(pod().status.conditions[0]).to.include({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' });
      const failed = [...c.objects.values()].find((o) => o.kind === 'Event' && o.reason === 'FailedScheduling');
      expect(failed?.message).to.match(/^0\/3 nodes are available: .*2 node\(s\) had untolerated taint/);
      c.update(live(c, 'Deployment', 'trainer')!, (o) => {
        o.spec.template.spec.tolerations = [toleration];
        o.metadata.generation += 1;
      });
      c.settle(20);
      const running = [...c.objects.values()].filter((o) => o.kind === 'Pod' && o.status?.phase === 'Running');
      expect(running.map((p) => p.spec.nodeName)).to.have.length(1);
      expect(running[0].spec.nodeName).to.match(/^gpu-/);
    });
  });
});
