import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import https from 'node:https';
import { KubernetesClusterClient } from '../../infrastructure/kubernetes/kubernetes-cluster-client.js';
import { KubeApiServer } from '../support/kube-api-server.js';
import type { Obj } from '../support/kube-cluster.js';
import { memoryMiB, podReady } from '../support/kube-pods.js';
import { testTls } from '../support/kube-test-ca.js';
import { applyMergePatch } from '../support/kube-writes.js';

/** The stand-in itself: what other tests rely on when they drive the adapter against it. */
describe('Kubernetes API stand-in behaviour', () => {
  let server: KubeApiServer;

  const raw = (method: string, path: string, body: unknown, contentType: string) =>
    new Promise<{ status: number; body: Obj }>((resolve, reject) => {
      const u = new URL(path, server.url);
      const req = https.request(
        {
          method,
          hostname: u.hostname,
          port: u.port,
          path: u.pathname + u.search,
          ca: testTls().caPem,
          headers: { authorization: `Bearer ${server.token}`, 'content-type': contentType },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });

  const web = (image: string, replicas: number, strategy?: Obj) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'x' },
    spec: {
      replicas,
      ...(strategy ? { strategy } : {}),
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } },
    },
  });
  const podsOf = (label: string) => [...server.objects.values()].filter((o) => o.kind === 'Pod' && o.metadata.labels?.app === label);
  const byImage = (image: string) => podsOf('web').filter((p) => p.spec.containers[0].image === image);

  beforeEach(async () => {
    server = await KubeApiServer.start();
    server.autoTick = false;
  });
  afterEach(() => server.close());

  it('merges patches as RFC 7386 says', () => {
    const cases: [unknown, unknown, unknown][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [
        ['a', 'b'],
        ['c', 'd'],
        ['c', 'd'],
      ],
      [{ a: 'foo' }, 'bar', 'bar'],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, result] of cases) expect(applyMergePatch(target, patch)).to.deep.equal(result);
  });

  it('answers 415 to a strategic merge patch and 409 to a stale resourceVersion', async () => {
    const d = server.create(web('nginx:1.25', 1));
    const path = server.pathFor(d);
    const smp = await raw('PATCH', path, { spec: { replicas: 2 } }, 'application/strategic-merge-patch+json');
    expect(smp.status).to.equal(415);
    expect(smp.body).to.include({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
    const stale = await raw('PATCH', path, { metadata: { resourceVersion: '1' }, spec: { replicas: 2 } }, 'application/merge-patch+json');
    expect(stale.status).to.equal(409);
    expect(stale.body.message).to.contain('the object has been modified');
    expect(server.objects.get(path)!.spec.replicas).to.equal(1);
  });

  it('replaces one pod per tick during a rolling update, keeping the minimum available', () => {
    const d = server.create(web('nginx:1.25', 4));
    server.settle();
    server.update(d, (o) => (o.spec.template.spec.containers[0].image = 'nginx:1.27'));
    server.reconcile();
    const seen: number[] = [];
    for (let i = 0; i < 20 && byImage('nginx:1.25').length > 0; i++) {
      server.tick();
      seen.push(byImage('nginx:1.27').length);
      expect(podsOf('web').filter(podReady).length).to.be.at.least(3); // maxUnavailable 25% of 4
      expect(podsOf('web').length).to.be.at.most(5); // maxSurge 25% of 4
    }
    expect(seen.length).to.be.greaterThan(3);
    expect(byImage('nginx:1.25')).to.deep.equal([]);
    server.settle();
    expect(byImage('nginx:1.27').filter(podReady)).to.have.length(4);
    expect(server.objects.get(server.pathFor(d))!.status).to.include({ replicas: 4, updatedReplicas: 4, availableReplicas: 4 });
  });

  it('recreates: old pods go before new ones come', () => {
    const d = server.create(web('nginx:1.25', 2, { type: 'Recreate' }));
    server.settle();
    server.update(d, (o) => (o.spec.template.spec.containers[0].image = 'nginx:1.27'));
    server.reconcile();
    server.tick();
    expect(podsOf('web')).to.deep.equal([]);
    server.settle();
    expect(byImage('nginx:1.27').filter(podReady)).to.have.length(2);
  });

  it('runs a StatefulSet in order with a claim per pod, and binds claims', () => {
    server.create({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'x' },
      spec: {
        replicas: 3,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'pg', image: 'postgres:16' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } } }],
      },
    });
    expect(podsOf('db').map((p) => p.metadata.name)).to.deep.equal(['db-0']);
    server.settle();
    expect(podsOf('db').map((p) => p.metadata.name)).to.deep.equal(['db-0', 'db-1', 'db-2']);
    expect(podsOf('db').every(podReady)).to.equal(true);
    const claim = server.objects.get(server.pathOf('v1', 'PersistentVolumeClaim', 'data-db-2', 'x'))!;
    expect(claim.status).to.deep.equal({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '5Gi' } });
  });

  it('reads memory quantities and normalises image names', () => {
    expect([memoryMiB('64Mi'), memoryMiB('1Gi'), memoryMiB('512Ki'), memoryMiB('1G'), memoryMiB(undefined)]).to.deep.equal([
      64,
      1024,
      0.5,
      1e9 / 1048576,
      undefined,
    ]);
    server.knownImages.set('ghcr.io/acme/api:2', 128);
    server.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a', namespace: 'x', labels: { app: 'a' } },
      spec: { containers: [{ name: 'c', image: 'docker.io/library/nginx' }] },
    });
    server.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'b', namespace: 'x', labels: { app: 'a' } },
      spec: { containers: [{ name: 'c', image: 'ghcr.io/acme/api:2', resources: { limits: { memory: '256Mi' } } }] },
    });
    server.tick();
    expect(podsOf('a').map((p) => [p.metadata.name, p.status.phase, podReady(p)])).to.deep.equal([
      ['a', 'Running', true],
      ['b', 'Running', true],
    ]);
  });

  it('publishes OpenAPI v3 schemas with types, enums, bounds and required fields for configuration questions', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(server.writeKubeconfig());
    const client = new KubernetesClusterClient(kc, { requestTimeoutMs: 5000 });
    const props = async (apiVersion: string, kind: string) => (await client.getResourceSchema(apiVersion, kind))!.schema.properties as Obj;
    const sts = (await props('apps/v1', 'StatefulSet')).spec.allOf[0];
    expect(sts.required).to.deep.equal(['selector', 'template', 'serviceName']);
    expect(sts.properties.podManagementPolicy.enum).to.deep.equal(['OrderedReady', 'Parallel']);
    const svc = (await props('v1', 'Service')).spec.allOf[0];
    expect(svc.properties.type.enum).to.deep.equal(['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']);
    expect(svc.properties.ports.items.allOf[0].required).to.deep.equal(['port']);
    expect((await props('v1', 'ConfigMap')).data.additionalProperties.type).to.equal('string');
    const pvc = (await props('v1', 'PersistentVolumeClaim')).spec.allOf[0];
    expect(pvc.properties.accessModes.items.enum).to.include('ReadWriteOnce');
    const cron = (await props('batch/v1', 'CronJob')).spec.allOf[0];
    expect(cron.required).to.deep.equal(['schedule', 'jobTemplate']);
    expect(cron.properties.concurrencyPolicy.enum).to.deep.equal(['Allow', 'Forbid', 'Replace']);
    const deploy = (await props('apps/v1', 'Deployment')).spec.allOf[0];
    const container = deploy.properties.template.allOf[0].properties.spec.allOf[0].properties.containers.items.allOf[0];
    expect(container.properties.imagePullPolicy.enum).to.deep.equal(['Always', 'IfNotPresent', 'Never']);
    expect(deploy.properties.strategy.allOf[0].properties.type.enum).to.deep.equal(['Recreate', 'RollingUpdate']);
    const widget = (await props('example.com/v1', 'Widget')).spec;
    expect(widget.required).to.deep.equal(['size']);
    expect(widget.properties.size).to.include({ minimum: 1, maximum: 100 });
  });
});
