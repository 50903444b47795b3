import { expect } from 'chai';
import https from 'node:https';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import type { Obj } from '../../lab/sandbox/kube/kube-cluster.js';
import { testTls } from '../../lab/sandbox/kube/kube-test-ca.js';
import { humanDuration } from '../../lab/sandbox/kube/kube-tables.js';
import { kubeRequest } from '../support/kube-raw.js';
import { webManifest } from '../support/operate-fixtures.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/**
 * The shapes kubectl reads, checked in process (the conformance test runs a
 * real kubectl; this holds without one): group versions on lists, Tables,
 * categories, OpenAPI paths and v2, the scale subresource, watch streams,
 * field-level server-side apply, and what the sandbox advertises.
 */
describe('Kubernetes API stand-in: what kubectl reads', () => {
  let server: KubeApiServer;

  const request = (method: string, path: string, opts: { body?: unknown; contentType?: string; accept?: string } = {}) =>
    kubeRequest(server, method, path, opts);

  beforeEach(async () => {
    server = await KubeApiServer.start();
    server.create(webManifest(2));
    server.settle(20);
  });
  afterEach(() => server.close());

  it('lists carry their group version; get answers Tables with the server columns when asked', async () => {
    const list = await request('GET', '/apis/apps/v1/namespaces/x/deployments');
    expect(list.body).to.include({ kind: 'DeploymentList', apiVersion: 'apps/v1' });
    const pods = await request('GET', '/api/v1/namespaces/x/pods', { accept: TABLE });
    expect(pods.body).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(pods.body.columnDefinitions.filter((c: Obj) => c.priority === 0).map((c: Obj) => c.name)).to.deep.equal([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
    ]);
    expect(pods.body.rows).to.have.length(2);
    expect(pods.body.rows[0].cells.slice(1, 4)).to.deep.equal(['1/1', 'Running', '0']);
    expect(pods.body.rows[0].object).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    const one = await request('GET', '/apis/apps/v1/namespaces/x/deployments/web', { accept: TABLE });
    expect(one.body.rows.map((r: Obj) => r.cells.slice(0, 4))).to.deep.equal([['web', '2/2', 2, 2]]);
  });

  it('ages as apimachinery prints them', () => {
    expect([5e3, 150e3, 600e3, 3 * 3600e3 + 60e3, 50 * 3600e3, -5e3].map(humanDuration)).to.deep.equal(['5s', '2m30s', '10m', '3h1m', '2d2h', '<invalid>']);
  });

  it('discovery: the all category and the scale subresource; /apis leaves out the broken aggregated API when told to', async () => {
    const apps = await request('GET', '/apis/apps/v1');
    const byName = Object.fromEntries(apps.body.resources.map((r: Obj) => [r.name, r]));
    expect(byName.deployments.categories).to.deep.equal(['all']);
    expect(byName['deployments/scale']).to.include({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect((await request('GET', '/apis')).body.groups.map((g: Obj) => g.name)).to.include('metrics.k8s.io');
    server.advertiseBroken = false;
    expect((await request('GET', '/apis')).body.groups.map((g: Obj) => g.name)).not.to.include('metrics.k8s.io');
    expect((await request('GET', '/apis/metrics.k8s.io/v1beta1')).status).to.equal(404);
  });

  it('OpenAPI: a PATCH path per kind with fieldValidation (v3), and the same as Swagger (v2)', async () => {
    const v3 = (await request('GET', '/openapi/v3/apis/apps/v1')).body;
    const patch = v3.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).to.deep.equal({ group: 'apps', kind: 'Deployment', version: 'v1' });
    expect(patch.parameters.map((p: Obj) => p.name)).to.include('fieldValidation');
    const v2 = (await request('GET', '/openapi/v2')).body;
    expect(v2.swagger).to.equal('2.0');
    expect(v2.definitions['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind']).to.deep.equal([
      { group: 'apps', kind: 'Deployment', version: 'v1' },
    ]);
    expect(JSON.stringify(v2)).not.to.contain('#/components/schemas/');
  });

  it('scale: GET answers a Scale; a merge patch changes only the replicas; a negative count is 422', async () => {
    const path = '/apis/apps/v1/namespaces/x/deployments/web/scale';
    expect((await request('GET', path)).body).to.deep.include({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 } });
    const scaled = await request('PATCH', `${path}?fieldManager=kubectl-scale`, {
      body: { spec: { replicas: 4 } },
      contentType: 'application/merge-patch+json',
    });
    expect(scaled.status).to.equal(200);
    expect(scaled.body.spec).to.deep.equal({ replicas: 4 });
    const stored = server.objects.get('/apis/apps/v1/namespaces/x/deployments/web')!;
    expect(stored.spec.replicas).to.equal(4);
    expect(stored.metadata.managedFields.at(-1)).to.include({ manager: 'kubectl-scale', subresource: 'scale' });
    const bad = await request('PATCH', path, { body: { spec: { replicas: -1 } }, contentType: 'application/merge-patch+json' });
    expect(bad.status).to.equal(422);
  });

  it('watch: existing objects ADDED without a resourceVersion, then each change as a line', async () => {
    const u = new URL('/apis/apps/v1/namespaces/x/deployments?watch=1&timeoutSeconds=5', server.url);
    const lines: Obj[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const req = https.get(
        { hostname: u.hostname, port: u.port, path: u.pathname + u.search, ca: testTls().caPem, headers: { authorization: `Bearer ${server.token}` } },
        (res) => {
          let buf = '';
          res.on('data', (c: Buffer) => {
            buf += c.toString('utf8');
            for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
              lines.push(JSON.parse(buf.slice(0, i)) as Obj);
              buf = buf.slice(i + 1);
            }
            if (lines.length >= 2) {
              req.destroy();
              resolve();
            }
          });
          res.on('end', () => resolve());
        },
      );
      req.on('error', (e) => (lines.length >= 2 ? resolve() : reject(e)));
    });
    await new Promise((r) => setTimeout(r, 100));
    await request('PATCH', '/apis/apps/v1/namespaces/x/deployments/web', {
      body: { metadata: { labels: { tier: 'front' } } },
      contentType: 'application/merge-patch+json',
    });
    await done;
    expect(lines.map((l) => [l.type, l.object.kind, l.object.metadata.name])).to.deep.equal([
      ['ADDED', 'Deployment', 'web'],
      ['MODIFIED', 'Deployment', 'web'],
    ]);
    expect(lines[1].object.metadata.labels).to.include({ tier: 'front' });
  });

  it('server-side apply: merges by field, names each conflicting field with its manager, force takes it over, managedFields kept', async () => {
    const cm = (data: Obj) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'flags', namespace: 'x' }, data });
    const apply = (manager: string, body: Obj, force = false) =>
      request('PATCH', `/api/v1/namespaces/x/configmaps/flags?fieldManager=${manager}${force ? '&force=true' : ''}`, {
        body,
        contentType: 'application/apply-patch+yaml',
      });
    expect((await apply('a', cm({ color: 'red', size: 'big' }))).status).to.equal(201);
    // the same value is shared, not a conflict; a new field is b's
    expect((await apply('b', cm({ size: 'big', shape: 'round' }))).status).to.equal(200);
    const clash = await apply('b', cm({ color: 'blue', size: 'small' }));
    expect(clash.status).to.equal(409);
    expect(clash.body.message).to.equal('Apply failed with 2 conflicts: conflicts with "a" using v1:\n- .data.color\n- .data.size');
    expect(clash.body.details.causes.map((c: Obj) => c.field)).to.deep.equal(['.data.color', '.data.size']);
    const forced = await apply('b', cm({ color: 'blue' }), true);
    // b no longer applies shape (only b owned it): removed; size stays, a still owns it
    expect(forced.body.data).to.deep.equal({ color: 'blue', size: 'big' });
    expect(Object.fromEntries(forced.body.metadata.managedFields.map((m: Obj) => [m.manager, m.fieldsV1]))).to.deep.equal({
      a: { 'f:data': { 'f:size': {} } },
      b: { 'f:data': { 'f:color': {} } },
    });
  });

  it("a Job's pod template is immutable: a patch or an apply changing it is 422 Invalid, field is immutable; other fields still change", async () => {
    const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'migrate', image: 'registry.example/migrate:1' }] } };
    server.create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate', namespace: 'x' }, spec: { suspend: true, template } });
    const path = '/apis/batch/v1/namespaces/x/jobs/migrate';
    const image = { spec: { template: { spec: { containers: [{ name: 'migrate', image: 'registry.example/migrate:2' }] } } } };
    for (const contentType of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      const refused = await request('PATCH', path, { body: image, contentType });
      expect(refused.status, contentType).to.equal(422);
      expect(refused.body).to.include({ kind: 'Status', reason: 'Invalid' });
      expect(refused.body.message).to.match(/^Job\.batch "migrate" is invalid: spec\.template: Invalid value: .*: field is immutable$/);
      expect(refused.body.details.causes[0]).to.include({ field: 'spec.template', reason: 'FieldValueInvalid' });
    }
    const applied = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate', namespace: 'x' }, ...image };
    expect((await request('PATCH', `${path}?fieldManager=kubectl&force=true`, { body: applied, contentType: 'application/apply-patch+yaml' })).status).to.equal(
      422,
    );
    expect((await request('GET', path)).body.spec.template.spec.containers[0].image).to.equal('registry.example/migrate:1');
    const resumed = await request('PATCH', path, { body: { spec: { suspend: false } }, contentType: 'application/merge-patch+json' });
    expect(resumed.status).to.equal(200);
    expect(resumed.body.spec.suspend).to.equal(false);
  });
});
