import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DependencyError, ExecutionError, NotConfiguredError, ValidationError } from '../../domain/errors.js';
import { createClusterClient } from '../../infrastructure/kubernetes/create-cluster-client.js';
import { KubernetesClusterClient } from '../../infrastructure/kubernetes/kubernetes-cluster-client.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { otherCaFile, testTls } from '../../lab/sandbox/kube/kube-test-ca.js';
import { rejection as failure } from '../support/rejection.js';

function clientFor(file: string, extra: Partial<ConstructorParameters<typeof KubernetesClusterClient>[1]> = {}) {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  return new KubernetesClusterClient(kc, { requestTimeoutMs: 5000, ...extra });
}

const pod = (name: string, ns: string, labels: Record<string, string> = {}, containers = ['app']) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels, managedFields: [{ manager: 'kubelet' }] },
  spec: { containers: containers.map((c) => ({ name: c, image: 'nginx' })) },
});

describe('KubernetesClusterClient against a Kubernetes API server over HTTPS', () => {
  let server: KubeApiServer;
  let client: KubernetesClusterClient;

  beforeEach(async () => {
    server = await KubeApiServer.start();
    client = clientFor(server.writeKubeconfig({ context: 'kind-test', namespace: 'x' }));
  });
  afterEach(() => server.close());

  describe('status and version', () => {
    it('reports connected with the context and the server version', async () => {
      expect(await client.status()).to.deep.equal({ connected: true, context: 'kind-test', serverVersion: 'v1.31.2' });
      expect(client.context()).to.equal('kind-test');
      expect(await client.version()).to.deep.equal({ gitVersion: 'v1.31.2', major: '1', minor: '31', platform: 'linux/amd64' });
    });

    it('reports a refused token as not connected, without the token', async () => {
      const wrong = 'wrong-token-0123456789abcdef';
      const s = await clientFor(server.writeKubeconfig({ token: wrong })).status();
      expect(s.connected).to.equal(false);
      expect(s.error).to.match(/refused the credentials of context "test-context" \(401 Unauthorized\)/);
      expect(s.error).not.to.contain(wrong);
      const e = await failure(clientFor(server.writeKubeconfig({ token: wrong })).version());
      expect(e).to.be.instanceOf(DependencyError);
      expect(e.message).not.to.contain(wrong);
    });

    it('does not trust a server whose certificate another CA signed', async () => {
      const s = await clientFor(server.writeKubeconfig({ caFile: otherCaFile() })).status();
      expect(s.connected).to.equal(false);
      expect(s.error).to.match(/unreachable: .*(certificate|verify)/i);
      expect(server.requests).to.have.length(0);
    });

    it('says what to set when the kubeconfig has no current-context', async () => {
      const c = clientFor(server.writeKubeconfig({ noCurrentContext: true }));
      const s = await c.status();
      expect(s).to.include({ connected: false, context: '' });
      expect(s.error).to.contain('no current-context').and.to.contain('KUBECONFIG');
      const e = await failure(c.get({ apiVersion: 'v1', kind: 'Pod', name: 'a', namespace: 'x' }));
      expect(e).to.be.instanceOf(NotConfiguredError);
      expect(e.message).to.contain('set KUBECONFIG');
    });

    it('connects in-cluster with the service-account token, CA and namespace files', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'svc-sa-'));
      writeFileSync(path.join(dir, 'token'), server.token);
      copyFileSync(testTls().caFile, path.join(dir, 'ca.crt'));
      writeFileSync(path.join(dir, 'namespace'), 'x\n');
      const port = Number(new URL(server.url).port);
      const c = createClusterClient({ source: { mode: 'in-cluster', host: '127.0.0.1', port, serviceAccountDir: dir }, requestTimeoutMs: 5000 });
      expect(await c.status()).to.deep.equal({ connected: true, context: 'in-cluster', serverVersion: 'v1.31.2' });
      server.put(pod('web-1', 'x'));
      expect((await c.get({ apiVersion: 'v1', kind: 'Pod', name: 'web-1' }))!.metadata.namespace).to.equal('x');
      writeFileSync(path.join(dir, 'token'), 'a-wrong-service-account-token-123456');
      const refused = createClusterClient({ source: { mode: 'in-cluster', host: '127.0.0.1', port, serviceAccountDir: dir }, requestTimeoutMs: 5000 });
      const e = await failure(refused.version());
      expect(e).to.be.instanceOf(DependencyError);
      expect(e.message).to.contain('context "in-cluster" (401 Unauthorized)').and.not.to.contain('a-wrong-service-account-token-123456');
      rmSync(dir, { recursive: true, force: true });
    });

    it('reports an unreachable server with its address', async () => {
      const c = clientFor(server.writeKubeconfig());
      await server.close();
      const s = await c.status();
      expect(s.connected).to.equal(false);
      expect(s.error).to.match(/Kubernetes API at https:\/\/127\.0\.0\.1:\d+ is unreachable: ECONNREFUSED/);
      server = await KubeApiServer.start(); // for afterEach
    });
  });

  describe('discovery and schemas', () => {
    it('lists every kind served, without subresources, skipping a group whose discovery fails', async () => {
      const all = await client.listApiResources();
      const deploy = all.find((r) => r.kind === 'Deployment');
      expect(deploy).to.deep.include({
        group: 'apps',
        version: 'v1',
        apiVersion: 'apps/v1',
        resource: 'deployments',
        namespaced: true,
        shortNames: ['deploy'],
      });
      expect(all.find((r) => r.kind === 'Namespace')).to.include({ group: '', namespaced: false });
      expect(all.map((r) => r.resource))
        .to.include('widgets')
        .and.not.include('pods/log');
      expect(server.requests.map((r) => r.path)).to.include('/apis/metrics.k8s.io/v1beta1');
    });

    it('returns the OpenAPI v3 schema of a kind with references inlined, caching the document', async () => {
      const s = await client.getResourceSchema('apps/v1', 'Deployment');
      const spec = (s!.schema.properties as any).spec.allOf[0];
      expect(spec.properties.replicas).to.deep.equal({ type: 'integer', format: 'int32', description: 'Number of desired pods.' });
      expect(spec.properties.template.allOf[0].properties.metadata.allOf[0].properties.name.type).to.equal('string');
      await client.getResourceSchema('apps/v1', 'Deployment');
      expect(server.requests.filter((r) => r.path === '/openapi/v3/apis/apps/v1')).to.have.length(1);
      expect(server.requests.find((r) => r.path === '/openapi/v3/apis/apps/v1')!.query.get('hash')).to.be.a('string');
    });

    it('stops inlining at a self-reference and returns null for an unpublished kind', async () => {
      const s = await client.getResourceSchema('example.com/v1', 'Widget');
      const spec = (s!.schema.properties as any).spec;
      expect(spec.properties.children.items).to.deep.equal({ $ref: '#/components/schemas/com.example.v1.Node' });
      expect(await client.getResourceSchema('apps/v1', 'DaemonSet')).to.equal(null);
      expect(await client.getResourceSchema('batch/v1', 'Job')).to.equal(null);
    });
  });

  describe('reads', () => {
    beforeEach(() => {
      server.put(pod('web-1', 'x', { app: 'web' }));
      server.put(pod('web-2', 'x', { app: 'web' }));
      server.put(pod('db-1', 'x', { app: 'db' }));
      server.put(pod('other', 'default', { app: 'web' }));
    });

    it('lists with a label selector, pages with a continue token, and strips managedFields', async () => {
      const page1 = await client.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'x', labelSelector: 'app=web', limit: 1 });
      expect(page1.items.map((p) => p.metadata.name)).to.deep.equal(['web-1']);
      expect(page1.items[0]).to.include({ apiVersion: 'v1', kind: 'Pod' });
      expect(page1.items[0].metadata).not.to.have.property('managedFields');
      const page2 = await client.list({
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: 'x',
        labelSelector: 'app=web',
        limit: 1,
        continueToken: page1.continueToken,
      });
      expect(page2.items.map((p) => p.metadata.name)).to.deep.equal(['web-2']);
      expect(page2.continueToken).to.equal(undefined);
      const everywhere = await client.list({ apiVersion: 'v1', kind: 'Pod', labelSelector: 'app=web' });
      expect(everywhere.items.map((p) => p.metadata.name).sort()).to.deep.equal(['other', 'web-1', 'web-2']);
    });

    it('gets an object, null when absent, in the context namespace by default', async () => {
      expect((await client.get({ apiVersion: 'v1', kind: 'Pod', name: 'web-1' }))!.metadata.namespace).to.equal('x');
      expect(await client.get({ apiVersion: 'v1', kind: 'Pod', name: 'nope', namespace: 'x' })).to.equal(null);
      expect((await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'x' }))!.kind).to.equal('Namespace');
    });

    it('redacts Secret values and the last-applied annotation that repeats them', async () => {
      server.put({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'x', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"aHVudGVyMg=="}}' } },
        data: { password: 'aHVudGVyMg==' },
      });
      const s = await client.get({ apiVersion: 'v1', kind: 'Secret', name: 's', namespace: 'x' });
      expect(s!.data).to.deep.equal({ password: '***' });
      expect(JSON.stringify(s)).not.to.contain('aHVudGVyMg==');
    });

    it('describes an object with its events, oldest first, and lists events by involved object', async () => {
      const ev = (name: string, last: string, reason: string) =>
        server.put({
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name, namespace: 'x' },
          type: 'Warning',
          reason,
          message: `${reason} msg`,
          count: 2,
          firstTimestamp: '2026-01-01T00:00:00Z',
          lastTimestamp: last,
          involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'x' },
        });
      ev('e2', '2026-01-01T00:05:00Z', 'BackOff');
      ev('e1', '2026-01-01T00:01:00Z', 'Pulled');
      server.put({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e3', namespace: 'x' }, reason: 'Other', involvedObject: { kind: 'Pod', name: 'db-1' } });
      const d = await client.describe({ apiVersion: 'v1', kind: 'Pod', name: 'web-1', namespace: 'x' });
      expect(d!.object.metadata.name).to.equal('web-1');
      expect(d!.events.map((e) => e.reason)).to.deep.equal(['Pulled', 'BackOff']);
      expect(d!.events[1]).to.deep.equal({
        type: 'Warning',
        reason: 'BackOff',
        message: 'BackOff msg',
        count: 2,
        firstTimestamp: '2026-01-01T00:00:00Z',
        lastTimestamp: '2026-01-01T00:05:00Z',
        involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'x' },
      });
      expect(server.requests.at(-1)!.query.get('fieldSelector')).to.equal('involvedObject.kind=Pod,involvedObject.name=web-1');
      expect(await client.describe({ apiVersion: 'v1', kind: 'Pod', name: 'gone', namespace: 'x' })).to.equal(null);
      expect((await client.events({ namespace: 'x' })).length).to.equal(3);
    });

    it('reads pod logs with tail and byte bounds', async () => {
      server.logs.set('x/web-1/app', 'one\ntwo\nthree\n');
      expect(await client.logs({ namespace: 'x', pod: 'web-1', tailLines: 2 })).to.equal('two\nthree\n');
      expect(server.requests.at(-1)!.query.get('limitBytes')).to.equal('262144');
      expect(await client.logs({ namespace: 'x', pod: 'web-1', limitBytes: 5 })).to.equal('one\nt');
    });

    it('turns a log request the server refuses into an ExecutionError with its message', async () => {
      server.put(pod('multi', 'x', {}, ['app', 'sidecar']));
      const e = await failure(client.logs({ namespace: 'x', pod: 'multi' }));
      expect(e).to.be.instanceOf(ExecutionError);
      expect(e.message).to.contain('a container name must be specified for pod multi, choose one of: [app sidecar]');
      const missing = await failure(client.logs({ namespace: 'x', pod: 'gone' }));
      expect(missing).to.be.instanceOf(ExecutionError);
      expect(missing.message).to.contain('pod x/gone not found');
    });

    it('refuses malformed names before any request', async () => {
      for (const bad of ['a/b', '..', 'a?b=c', '']) {
        expect(await failure(client.get({ apiVersion: 'v1', kind: 'Pod', name: bad, namespace: 'x' }))).to.be.instanceOf(ValidationError);
      }
      expect(await failure(client.list({ apiVersion: 'v1', kind: 'Pod', namespace: '../x' }))).to.be.instanceOf(ValidationError);
      expect(server.requests).to.have.length(0);
    });

    it('says the cluster does not serve an unknown kind', async () => {
      const e = await failure(client.get({ apiVersion: 'apps/v1', kind: 'Gadget', name: 'a' }));
      expect(e).to.be.instanceOf(ExecutionError);
      expect(e.message).to.contain('does not serve kind Gadget in apiVersion apps/v1');
    });
  });
});
