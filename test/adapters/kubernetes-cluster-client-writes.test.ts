import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { DependencyError, ExecutionError, ValidationError } from '../../domain/errors.js';
import { KubernetesClusterClient } from '../../infrastructure/kubernetes/kubernetes-cluster-client.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { rejection } from '../support/rejection.js';

const failure = (p: Promise<unknown>) => rejection<Error & { details?: any }>(p);

const deployment = (replicas: number, namespace = 'x'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } } } },
});

describe('KubernetesClusterClient writes, waits and failures', () => {
  let server: KubeApiServer;
  let client: KubernetesClusterClient;
  let now = 0;
  let onSleep: () => void = () => {};

  beforeEach(async () => {
    server = await KubeApiServer.start();
    const kc = new KubeConfig();
    kc.loadFromFile(server.writeKubeconfig());
    now = 0;
    onSleep = () => {};
    client = new KubernetesClusterClient(kc, {
      requestTimeoutMs: 5000,
      now: () => now,
      sleep: async (ms) => {
        now += ms;
        onSleep();
      },
    });
  });
  afterEach(() => server.close());

  it('dry-runs a server-side apply: dryRun=All, the field manager, the apply content type, nothing stored', async () => {
    const r = await client.dryRunApply(deployment(2));
    expect(r.accepted).to.equal(true);
    expect(r.accepted && r.object.metadata.uid).to.be.a('string');
    const patch = server.requests.find((q) => q.method === 'PATCH')!;
    expect(patch.path).to.equal('/apis/apps/v1/namespaces/x/deployments/web');
    expect(patch.query.get('dryRun')).to.equal('All');
    expect(patch.query.get('fieldManager')).to.equal('svc');
    expect(patch.contentType).to.equal('application/apply-patch+yaml');
    expect(JSON.parse(patch.body!)).to.deep.equal(deployment(2));
    expect(await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' })).to.equal(null);
  });

  it('returns the server verdict on an invalid manifest instead of throwing', async () => {
    expect(await client.dryRunApply(deployment(-1))).to.deep.equal({
      accepted: false,
      reason: 'Invalid',
      message: 'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      causes: [{ field: 'spec.replicas', message: 'Invalid value: -1: must be greater than or equal to 0', reason: 'FieldValueInvalid' }],
    });
    const missingNs = await client.dryRunApply(deployment(1, 'nope'));
    expect(missingNs).to.deep.include({ accepted: false, reason: 'NotFound', message: 'namespaces "nope" not found' });
  });

  it('applies, then reports a field-manager conflict as an ExecutionError until forced', async () => {
    const stored = await client.apply(deployment(2));
    expect(stored.metadata).to.include({ name: 'web', namespace: 'x', resourceVersion: '1' });
    expect(stored.metadata).not.to.have.property('managedFields');
    const conflict = await failure(client.apply(deployment(3), { fieldManager: 'someone-else' }));
    expect(conflict).to.be.instanceOf(ExecutionError);
    expect(conflict.message).to.equal(
      'Kubernetes rejected apply Deployment x/web (409 Conflict): Apply failed with 1 conflict: conflict with "svc" using apps/v1: .spec.replicas',
    );
    expect(conflict.details).to.deep.include({ reason: 'Conflict', code: 409 });
    const forced = await client.apply(deployment(3), { fieldManager: 'someone-else', force: true });
    expect((forced.spec as any).replicas).to.equal(3);
    expect(server.requests.at(-1)!.query.get('force')).to.equal('true');
  });

  it('refuses a manifest without a name before any request', async () => {
    const bad = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: {} } as unknown as KubeObject;
    expect(await failure(client.apply(bad))).to.be.instanceOf(ValidationError);
    expect(await failure(client.dryRunApply({ ...deployment(1), apiVersion: 'apps/v1/../x' }))).to.be.instanceOf(ValidationError);
    expect(server.requests).to.have.length(0);
  });

  it('deletes with background propagation; false when already gone', async () => {
    await client.apply(deployment(1));
    expect(await client.delete({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' })).to.equal(true);
    expect(server.requests.at(-1)!.query.get('propagationPolicy')).to.equal('Background');
    expect(await client.delete({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' })).to.equal(false);
  });

  it('waits until a condition holds, polling at the interval', async () => {
    const path = server.pathOf('apps/v1', 'Deployment', 'web', 'x');
    await client.apply(deployment(1));
    let polls = 0;
    onSleep = () => {
      if (++polls === 2) server.objects.get(path)!.status = { conditions: [{ type: 'Available', status: 'True' }] };
    };
    const r = await client.waitFor(
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' },
      { type: 'condition', name: 'Available' },
      { timeoutMs: 60000, intervalMs: 1000 },
    );
    expect(r).to.deep.include({ met: true, elapsedMs: 2000 });
    expect((r.object!.status as any).conditions[0].type).to.equal('Available');
  });

  it('gives up at the timeout with met: false, and waits for deletion', async () => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };
    await client.apply(deployment(1));
    const r = await client.waitFor(ref, { type: 'condition', name: 'Available' }, { timeoutMs: 5000, intervalMs: 2000 });
    expect(r).to.deep.include({ met: false, elapsedMs: 5000 });
    onSleep = () => server.objects.delete(server.pathOf('apps/v1', 'Deployment', 'web', 'x'));
    const gone = await client.waitFor(ref, { type: 'deleted' }, { timeoutMs: 5000, intervalMs: 100 });
    expect(gone).to.deep.equal({ met: true, elapsedMs: 100 });
    expect(await failure(client.waitFor(ref, { type: 'condition', name: 'bad name' }, { timeoutMs: 10 }))).to.be.instanceOf(ValidationError);
  });

  it('maps a 5xx Status to DependencyError with the server message', async () => {
    server.intercept = (r) =>
      r.path === '/version'
        ? { status: 500, body: { kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500, message: 'etcdserver: request timed out' } }
        : undefined;
    const e = await failure(client.version());
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.equal('Kubernetes API failed GET /version (500 InternalError): etcdserver: request timed out');
  });

  it('maps a 403 to DependencyError and keeps a non-Status error body out of the message', async () => {
    server.intercept = (r) =>
      r.path.includes('/pods')
        ? {
            status: 403,
            body: { kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message: 'pods is forbidden: User "svc" cannot list resource "pods"' },
          }
        : undefined;
    const e = await failure(client.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'x' }));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.contain('(403 Forbidden): pods is forbidden');
    server.intercept = (r) => (r.path === '/version' ? { status: 502, body: `<html>bad gateway ${server.token}</html>` } : undefined);
    const html = await failure(client.version());
    expect(html.message).to.equal('Kubernetes API failed GET /version (502 InternalError): HTTP 502');
  });

  it('times out a request that never answers', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(server.writeKubeconfig());
    const impatient = new KubernetesClusterClient(kc, { requestTimeoutMs: 200, statusTimeoutMs: 200 });
    server.intercept = () => ({ hang: true });
    const e = await failure(impatient.get({ apiVersion: 'v1', kind: 'Pod', name: 'a', namespace: 'x' }));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.match(/did not answer within 200 ms \(GET \/api\/v1\)/);
    const s = await impatient.status();
    expect(s.connected).to.equal(false);
    expect(s.error).to.contain('did not answer within 200 ms');
  });

  it('never puts the bearer token into a message, even when the server echoes it', async () => {
    server.intercept = (r) =>
      r.method === 'PATCH'
        ? {
            status: 422,
            body: {
              kind: 'Status',
              status: 'Failure',
              reason: 'Invalid',
              code: 422,
              message: `bad token ${server.token} in https://u:${server.token}@h/?token=${server.token}`,
              details: { causes: [{ message: server.token }] },
            },
          }
        : undefined;
    const verdict = await client.dryRunApply(deployment(1));
    const e = await failure(client.apply(deployment(1)));
    expect(JSON.stringify(verdict)).not.to.contain(server.token);
    expect(e.message + JSON.stringify(e.details)).not.to.contain(server.token);
    expect(e.message).to.contain('bad token ***');
  });
});
