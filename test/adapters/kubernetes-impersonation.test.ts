import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { DependencyError, ForbiddenError } from '../../domain/errors.js';
import { KubernetesClusterClient } from '../../infrastructure/kubernetes/kubernetes-cluster-client.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { SVC_USER } from '../../lab/sandbox/kube/kube-rbac.js';
import { rejection } from '../support/rejection.js';

const ALICE = { user: 'alice@example.com', groups: ['sre', 'oncall'] };
const WEB = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'prod' };
const web = (image = 'nginx:1.25'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', labels: { app: 'web' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } },
  },
});

describe('KubernetesClusterClient acting as a caller (Impersonate-User / Impersonate-Group) against the stand-in', () => {
  let server: KubeApiServer;
  let own: KubernetesClusterClient;

  beforeEach(async () => {
    server = await KubeApiServer.start();
    server.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } });
    server.create(web());
    server.rbac.mayImpersonate = true;
    const kc = new KubeConfig();
    kc.loadFromFile(server.writeKubeconfig());
    own = new KubernetesClusterClient(kc, { requestTimeoutMs: 5000 });
  });
  afterEach(() => server.close());

  it('sends the user and one Impersonate-Group per group on every request, discovery included; svc’s own client sends none', async () => {
    const alice = own.actingAs(ALICE);
    await alice.get(WEB);
    await alice.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'prod' });
    await alice.dryRunApply(web('nginx:1.27'));
    await alice.patch(WEB, { spec: { replicas: 2 } });
    const made = server.requests.length;
    expect(made).to.be.greaterThan(4);
    expect(server.requests.filter((r) => r.impersonateUser !== ALICE.user || r.impersonateGroups.join('|') !== 'sre|oncall')).to.deep.equal([]);
    await own.get(WEB);
    expect(server.requests.length).to.be.greaterThan(made);
    expect(server.requests.slice(made).filter((r) => r.impersonateUser !== undefined || r.impersonateGroups.length > 0)).to.deep.equal([]);
    // one client per identity, kept: its discovery is not asked again
    expect(own.actingAs({ user: ALICE.user, groups: [...ALICE.groups] })).to.equal(alice);
    expect(own.actingAs({ user: ALICE.user, groups: ['sre'] })).to.not.equal(alice);
  });

  it('a 403 is ForbiddenError naming the verb, resource and namespace the cluster refused, for reads, dry runs and writes alike', async () => {
    server.rbac.deny({ user: ALICE.user, verb: 'patch', resource: 'deployments', namespace: 'prod' });
    server.rbac.deny({ group: 'oncall', verb: 'list', resource: 'pods', namespace: 'prod' });
    const alice = own.actingAs(ALICE);
    const write = await rejection(alice.patch(WEB, { spec: { replicas: 3 } }));
    expect(write).to.be.instanceOf(ForbiddenError);
    expect(write.message).to.equal(
      'Kubernetes does not let alice@example.com patch deployments.apps in namespace "prod" (during patch Deployment prod/web): ' +
        'deployments.apps "web" is forbidden: User "alice@example.com" cannot patch resource "deployments" in API group "apps" in the namespace "prod"',
    );
    expect((write as ForbiddenError).details).to.deep.equal({
      reason: 'Forbidden',
      code: 403,
      user: 'alice@example.com',
      verb: 'patch',
      resource: 'deployments',
      group: 'apps',
      namespace: 'prod',
    });
    // a dry run too: the caller may not, whatever the change (not a verdict to fix)
    expect(await rejection(alice.dryRunApply(web('nginx:1.27')))).to.be.instanceOf(ForbiddenError);
    const read = await rejection(alice.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'prod' }));
    expect(read).to.be.instanceOf(ForbiddenError);
    expect(read.message).to.match(/^Kubernetes does not let alice@example.com list pods in namespace "prod"/);
    expect(await alice.get(WEB)).to.not.equal(null);
    expect(server.objects.get(server.pathOf('apps/v1', 'Deployment', 'web', 'prod'))!.spec.replicas).to.equal(1);
  });

  it('svc’s own identity keeps the port’s contract for a 403: DependencyError on a read, a refused verdict on a dry run', async () => {
    server.rbac.deny({ user: SVC_USER, verb: 'patch', resource: 'deployments', namespace: 'prod' });
    server.rbac.deny({ user: SVC_USER, verb: 'list', resource: 'pods' });
    expect(await rejection(own.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'prod' }))).to.be.instanceOf(DependencyError);
    expect(await own.dryRunApply(web('nginx:1.27'))).to.deep.include({ accepted: false, reason: 'Forbidden' });
  });

  it('refuses to act as anyone when svc’s own identity may not impersonate, as the API server does', async () => {
    server.rbac.mayImpersonate = false;
    const e = await rejection(own.actingAs(ALICE).get(WEB));
    expect(e).to.be.instanceOf(ForbiddenError);
    expect(e.message).to.contain(
      `users "alice@example.com" is forbidden: User "${SVC_USER}" cannot impersonate resource "users" in API group "" at the cluster scope`,
    );
    expect(e.message).to.match(/^Kubernetes does not let system:serviceaccount:svc:svc impersonate users at the cluster scope/);
  });
});
