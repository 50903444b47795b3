import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import { KubernetesClusterClient } from '../../infrastructure/kubernetes/kubernetes-cluster-client.js';
import { parseWarnings } from '../../infrastructure/kubernetes/kube-transport.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import type { Obj } from '../../lab/sandbox/kube/kube-cluster.js';

const WEB: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };
const WIDGET: ResourceRef = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'x' };

const web = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'x' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          { name: 'app', image: 'nginx:1.25', env: [{ name: 'MODE', value: 'prod' }], volumeMounts: [{ name: 'data', mountPath: '/data' }] },
          { name: 'sidecar', image: 'busybox:1.36' },
        ],
      },
    },
  },
});

/** The adapter's write requests as the API server sees them: patch types, Strict validation, preconditions, namespaces, warnings. */
describe('KubernetesClusterClient writes: patch types, field validation, preconditions (Kubernetes stand-in)', () => {
  let server: KubeApiServer;
  let client: KubernetesClusterClient;
  const stored = (ref: ResourceRef) =>
    server.objects.get(`/apis/${ref.apiVersion}/namespaces/${ref.namespace}/${ref.kind === 'Widget' ? 'widgets' : 'deployments'}/${ref.name}`) as Obj;

  beforeEach(async () => {
    server = await KubeApiServer.start();
    server.autoTick = false;
    // the context names a namespace: a write without one must still not land there
    const kc = new KubeConfig();
    kc.loadFromFile(server.writeKubeconfig({ namespace: 'x' }));
    client = new KubernetesClusterClient(kc, { requestTimeoutMs: 5000 });
  });
  afterEach(() => server.close());

  it('a patch naming only the image keeps env, volumeMounts and the other container (strategic merge, Strict)', async () => {
    server.create(web());
    await client.patch(WEB, { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } } });
    const sent = server.requests.filter((r) => r.method === 'PATCH');
    expect(sent.map((r) => [r.contentType, r.query.get('fieldValidation')])).to.deep.equal([['application/strategic-merge-patch+json', 'Strict']]);
    expect(stored(WEB).spec.template.spec.containers).to.deep.equal([
      { name: 'app', image: 'nginx:1.27', env: [{ name: 'MODE', value: 'prod' }], volumeMounts: [{ name: 'data', mountPath: '/data' }] },
      { name: 'sidecar', image: 'busybox:1.36' },
    ]);
  });

  it('a typo in a patch or a manifest is a refused dry run naming the field, not a change silently dropped', async () => {
    server.create(web());
    const patch = await client.dryRunPatch(WEB, { spec: { replica: 3 } });
    expect(patch).to.deep.include({ accepted: false, reason: 'BadRequest' });
    expect(patch.accepted === false && patch.message).to.contain('unknown field "spec.replica"');
    const manifest = { ...web(), spec: { ...(web().spec as Obj), replica: 3 } };
    const apply = await client.dryRunApply(manifest);
    expect(apply.accepted === false && apply.message).to.contain('unknown field "spec.replica"');
    expect(server.requests.filter((r) => r.method === 'PATCH').every((r) => r.query.get('fieldValidation') === 'Strict')).to.equal(true);
  });

  it('custom resources: an object patch is a JSON merge patch, a list is a JSON Patch; never a strategic merge (415)', async () => {
    server.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'x' }, spec: { items: [{ size: 1 }, { size: 2 }] } });
    await client.patch(WIDGET, { spec: { color: 'blue' } });
    await client.patch(WIDGET, [{ op: 'replace', path: '/spec/items/1/size', value: 5 }]);
    expect(server.requests.filter((r) => r.method === 'PATCH').map((r) => r.contentType)).to.deep.equal([
      'application/merge-patch+json',
      'application/json-patch+json',
    ]);
    expect(stored(WIDGET).spec).to.deep.equal({ items: [{ size: 1 }, { size: 5 }], color: 'blue' });
  });

  it('a resourceVersion precondition: a change made since is a Conflict verdict, and the write is refused without overwriting it', async () => {
    const created = server.create(web());
    const seen = created.metadata.resourceVersion as string;
    server.update(created, (o) => (o.spec.template.spec.containers[0].image = 'nginx:1.26')); // a CI bump
    const imagePatch = { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } } };
    expect(await client.dryRunPatch(WEB, imagePatch, { resourceVersion: seen })).to.deep.include({ accepted: false, reason: 'Conflict' });
    const ops = [{ op: 'replace' as const, path: '/spec/replicas', value: 3 }];
    expect(await client.dryRunPatch(WEB, ops, { resourceVersion: seen })).to.deep.include({ accepted: false, reason: 'Conflict' });
    expect(await client.dryRunApply(web(), { resourceVersion: seen, force: true })).to.deep.include({ accepted: false, reason: 'Conflict' });
    expect(await client.dryRunDelete(WEB, { resourceVersion: seen })).to.deep.include({ accepted: false, reason: 'Conflict' });
    const thrown = await client.patch(WEB, imagePatch, { resourceVersion: seen }).catch((e: Error) => e);
    expect((thrown as Error).message).to.contain('409 Conflict');
    expect(stored(WEB).spec.template.spec.containers[0].image).to.equal('nginx:1.26');
    const current = stored(WEB).metadata.resourceVersion;
    expect(await client.dryRunPatch(WEB, imagePatch, { resourceVersion: current })).to.deep.include({ accepted: true });
  });

  it('a namespaced kind without a namespace is refused before any request; the context namespace is never used for a write', async () => {
    server.create(web());
    const noNs = { ...WEB, namespace: undefined };
    const verdict = await client.dryRunPatch(noNs, { spec: { replicas: 3 } });
    expect(verdict).to.deep.include({ accepted: false, reason: 'BadRequest' });
    expect(verdict.accepted === false && verdict.message).to.contain('Deployment is namespaced: name its namespace');
    const manifest = { ...web(), metadata: { name: 'web' } };
    expect(await client.dryRunApply(manifest)).to.deep.include({ accepted: false, reason: 'BadRequest' });
    expect((await client.delete(noNs).catch((e: Error) => e)) as Error).to.be.instanceOf(Error);
    expect(server.requests.filter((r) => r.method !== 'GET')).to.deep.equal([]);
    // reads still default to the context's namespace
    expect((await client.get(noNs))?.metadata.name).to.equal('web');
  });

  it("returns the API server's Warning headers with a dry run's verdict", async () => {
    server.create(web());
    server.intercept = (r) =>
      r.method === 'PATCH'
        ? { body: web(), warnings: ['spec.template.spec.containers[0].env[0]: hides a previous definition', 'apps/v1beta1 is deprecated'] }
        : undefined;
    const verdict = await client.dryRunPatch(WEB, { spec: { replicas: 2 } });
    expect(verdict).to.deep.include({
      accepted: true,
      warnings: ['spec.template.spec.containers[0].env[0]: hides a previous definition', 'apps/v1beta1 is deprecated'],
    });
    expect(parseWarnings(['299 - "a \\"quoted\\" word", 299 - "second"', '299 - "third"'])).to.deep.equal(['a "quoted" word', 'second', 'third']);
  });
});
