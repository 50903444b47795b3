import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { KubernetesClusterClient } from '../../infrastructure/kubernetes/kubernetes-cluster-client.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import type { Obj } from '../../lab/sandbox/kube/kube-cluster.js';
import { memoryMiB, podReady } from '../../lab/sandbox/kube/kube-pods.js';
import { applyMergePatch } from '../../lab/sandbox/kube/kube-patches.js';
import { kubeRequest } from '../support/kube-raw.js';

/** The stand-in itself: what other tests rely on when they drive the adapter against it. */
describe('Kubernetes API stand-in behaviour', () => {
  let server: KubeApiServer;

  const raw = (method: string, path: string, body: unknown, contentType: string) => kubeRequest(server, method, path, { body, contentType });

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

  it('answers 415 to a strategic merge patch of a custom resource and 409 to a stale resourceVersion', async () => {
    const d = server.create(web('nginx:1.25', 1));
    const path = server.pathFor(d);
    const widget = server.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'x' }, spec: { size: 1 } });
    const smp = await raw('PATCH', server.pathFor(widget), { spec: { size: 2 } }, 'application/strategic-merge-patch+json');
    expect(smp.status).to.equal(415);
    expect(smp.body).to.include({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
    expect(smp.body.message).to.not.contain('strategic');
    const stale = await raw('PATCH', path, { metadata: { resourceVersion: '1' }, spec: { replicas: 2 } }, 'application/merge-patch+json');
    expect(stale.status).to.equal(409);
    expect(stale.body.message).to.contain('the object has been modified');
    expect(server.objects.get(path)!.spec.replicas).to.equal(1);
  });

  describe('patch content types, field validation and preconditions, as kube-apiserver', () => {
    const SMP = 'application/strategic-merge-patch+json';
    const MERGE = 'application/merge-patch+json';
    const JSON_PATCH = 'application/json-patch+json';
    const rich = () => {
      const d = web('nginx:1.25', 1) as Obj;
      d.spec.template.spec.containers = [
        { name: 'app', image: 'nginx:1.25', env: [{ name: 'MODE', value: 'prod' }], volumeMounts: [{ name: 'data', mountPath: '/data' }] },
        { name: 'sidecar', image: 'busybox:1.36' },
      ];
      return server.create(d);
    };
    const imageOnly = { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } } };

    it('a merge patch replaces the container list; a strategic merge patch merges containers by name and keeps env and volumeMounts', async () => {
      const path = server.pathFor(rich());
      const merged = await raw('PATCH', `${path}?dryRun=All`, imageOnly, MERGE);
      expect(merged.body.spec.template.spec.containers).to.deep.equal([{ name: 'app', image: 'nginx:1.27' }]);
      const smp = await raw('PATCH', path, imageOnly, SMP);
      expect(smp.status).to.equal(200);
      expect(server.objects.get(path)!.spec.template.spec.containers).to.deep.equal([
        { name: 'app', image: 'nginx:1.27', env: [{ name: 'MODE', value: 'prod' }], volumeMounts: [{ name: 'data', mountPath: '/data' }] },
        { name: 'sidecar', image: 'busybox:1.36' },
      ]);
      const env = {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'app', env: [{ name: 'LOG', value: 'debug' }] },
                { name: 'sidecar', $patch: 'delete' },
              ],
            },
          },
        },
      };
      await raw('PATCH', path, env, SMP);
      expect(server.objects.get(path)!.spec.template.spec.containers).to.deep.equal([
        {
          name: 'app',
          image: 'nginx:1.27',
          env: [
            { name: 'MODE', value: 'prod' },
            { name: 'LOG', value: 'debug' },
          ],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ]);
    });

    it('JSON Patch: ops apply in order; an op that does not apply is 422 and nothing changes', async () => {
      const widget = server.create({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w', namespace: 'x' },
        spec: { items: [{ size: 1 }, { size: 2 }] },
      });
      const path = server.pathFor(widget);
      const ok = await raw(
        'PATCH',
        path,
        [
          { op: 'replace', path: '/spec/items/1/size', value: 3 },
          { op: 'add', path: '/spec/items/-', value: { size: 4 } },
        ],
        JSON_PATCH,
      );
      expect(ok.status).to.equal(200);
      expect(server.objects.get(path)!.spec.items).to.deep.equal([{ size: 1 }, { size: 3 }, { size: 4 }]);
      const bad = await raw('PATCH', path, [{ op: 'replace', path: '/spec/missing', value: 1 }], JSON_PATCH);
      expect(bad.status).to.equal(422);
      expect(bad.body.message).to.contain('doc is missing key: /spec/missing');
      expect(server.objects.get(path)!.spec.items).to.have.length(3);
      const tested = await raw(
        'PATCH',
        path,
        [
          { op: 'test', path: '/spec/items/0', value: { size: 1 } },
          { op: 'remove', path: '/spec/items/0' },
          { op: 'add', path: '/spec/items/0', value: { size: 0 } },
          { op: 'add', path: '/metadata/annotations', value: { 'a.b/c': 'x' } },
          { op: 'replace', path: '/metadata/annotations/a.b~1c', value: 'y' },
        ],
        JSON_PATCH,
      );
      expect(tested.status).to.equal(200);
      expect(server.objects.get(path)!.spec.items).to.deep.equal([{ size: 0 }, { size: 3 }, { size: 4 }]);
      expect(server.objects.get(path)!.metadata.annotations).to.deep.equal({ 'a.b/c': 'y' });
      // a failed test op, a negative index, `-` outside add: 422, and the ops before it are not applied either
      for (const ops of [
        [
          { op: 'remove', path: '/spec/items/2' },
          { op: 'test', path: '/spec/items/0/size', value: 9 },
        ],
        [{ op: 'remove', path: '/spec/items/-1' }],
        [{ op: 'replace', path: '/spec/items/-', value: { size: 5 } }],
        [{ op: 'test', path: '/spec/nothing', value: null }],
      ]) {
        const refused = await raw('PATCH', path, ops, JSON_PATCH);
        expect(refused.status, JSON.stringify(ops)).to.equal(422);
      }
      expect(server.objects.get(path)!.spec.items).to.deep.equal([{ size: 0 }, { size: 3 }, { size: 4 }]);
    });

    it('fieldValidation: Strict refuses an unknown field, Warn drops it with a Warning header, Ignore drops it silently', async () => {
      const path = server.pathFor(rich());
      const typo = { spec: { replica: 3 } };
      const strict = await raw('PATCH', `${path}?fieldValidation=Strict`, typo, SMP);
      expect(strict.status).to.equal(400);
      expect(strict.body).to.include({
        reason: 'BadRequest',
        message: 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica"',
      });
      const warn = await raw('PATCH', path, typo, SMP);
      expect(warn.status).to.equal(200);
      expect(warn.warning).to.equal('299 - "unknown field \\"spec.replica\\""');
      expect(server.objects.get(path)!.spec).to.not.have.property('replica');
      const ignore = await raw('PATCH', `${path}?fieldValidation=Ignore`, typo, SMP);
      expect([ignore.status, ignore.warning]).to.deep.equal([200, undefined]);
      const apply = await raw(
        'PATCH',
        `${path}?fieldManager=svc&force=true&fieldValidation=Strict`,
        { ...web('nginx:1.25', 1), spec: { ...web('nginx:1.25', 1).spec, replicaz: 2 } },
        'application/apply-patch+yaml',
      );
      expect(apply.status).to.equal(400);
      expect(apply.body.message).to.contain('unknown field "spec.replicaz"');
    });

    it('a resourceVersion that is not the stored one is 409 for every patch type, apply and delete', async () => {
      const d = rich();
      const path = server.pathFor(d);
      const stale = String(Number(d.metadata.resourceVersion) - 1);
      for (const [body, type] of [
        [{ metadata: { resourceVersion: stale }, spec: { replicas: 2 } }, SMP],
        [{ metadata: { resourceVersion: stale }, spec: { replicas: 2 } }, MERGE],
        [
          [
            { op: 'replace', path: '/spec/replicas', value: 2 },
            { op: 'replace', path: '/metadata/resourceVersion', value: stale },
          ],
          JSON_PATCH,
        ],
      ] as const) {
        const r = await raw('PATCH', path, body, type);
        expect(r.status, type).to.equal(409);
      }
      const applied = await raw(
        'PATCH',
        `${path}?fieldManager=svc&force=true`,
        { ...web('nginx:1.25', 5), metadata: { name: 'web', namespace: 'x', resourceVersion: stale } },
        'application/apply-patch+yaml',
      );
      expect(applied.status).to.equal(409);
      const deleted = await raw('DELETE', path, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: stale } }, 'application/json');
      expect(deleted.status).to.equal(409);
      expect(deleted.body.message).to.contain(`Precondition failed: ResourceVersion in precondition: ${stale}`);
      expect(server.objects.get(path)!.spec.replicas).to.equal(1);
      const current = await raw('PATCH', path, { metadata: { resourceVersion: d.metadata.resourceVersion }, spec: { replicas: 2 } }, SMP);
      expect(current.status).to.equal(200);
    });
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
