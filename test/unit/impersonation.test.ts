import { expect } from 'chai';
import { actingAsService, actingCaller, actingFor } from '../../application/cluster/acting-caller.js';
import { callerAwareCluster } from '../../application/cluster/caller-aware-cluster.js';
import { rolesUpTo, STATIC_TOKEN_CALLER, ANONYMOUS_CALLER, type Caller } from '../../domain/auth/caller.js';
import { kubeIdentityOf, type KubeIdentity } from '../../domain/auth/kube-identity.js';
import { clusterForbidden, parseClusterRefusal } from '../../domain/cluster/cluster-refusal.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import { ForbiddenError } from '../../domain/errors.js';
import type { ClusterClient, ImpersonatingClusterClients } from '../../domain/ports/cluster-client.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { dozenKinds, orgDataParts, tick } from '../support/orgdata-parts.js';
import { rejection } from '../support/rejection.js';

const caller = (over: Partial<Caller>): Caller => ({
  id: 'oidc:https://idp.test:alice',
  username: 'alice',
  groups: [],
  roles: rolesUpTo('operator'),
  kind: 'oidc',
  ...over,
});

/** Clients per identity, each a FakeCluster that remembers who it is. */
class FakeClients implements ImpersonatingClusterClients {
  readonly made = new Map<string, FakeCluster>();
  actingAs(identity: KubeIdentity): ClusterClient {
    const key = [identity.user, ...identity.groups].join('|');
    if (!this.made.has(key)) this.made.set(key, new FakeCluster());
    return this.made.get(key)!;
  }
}

describe('impersonation: who svc acts as in the cluster', () => {
  describe('kubeIdentityOf', () => {
    it('an OIDC caller is their username and groups; a named static token is svc:<name> with the groups of its line', () => {
      expect(kubeIdentityOf(caller({ groups: ['sre', 'oncall'] }))).to.deep.equal({ user: 'alice', groups: ['sre', 'oncall'] });
      expect(kubeIdentityOf(caller({ username: 'ci', kind: 'tokens-file', groups: ['deployers'] }))).to.deep.equal({ user: 'svc:ci', groups: ['deployers'] });
    });

    it('SVC_AUTH_TOKEN and an unauthenticated loopback server are no person: svc’s own identity', () => {
      expect(kubeIdentityOf(STATIC_TOKEN_CALLER)).to.equal(undefined);
      expect(kubeIdentityOf(ANONYMOUS_CALLER)).to.equal(undefined);
    });

    it('refuses names a header cannot carry safely or Kubernetes reserves (untrusted token claims), before any request', () => {
      const refused = (c: Caller) => {
        try {
          kubeIdentityOf(c);
        } catch (e) {
          expect(e).to.be.instanceOf(ForbiddenError);
          return (e as Error).message;
        }
        throw new Error('accepted');
      };
      expect(refused(caller({ username: 'alice\r\nImpersonate-Group: system:masters' }))).to.contain('characters other than printable ASCII');
      expect(refused(caller({ groups: ['sre\n'] }))).to.contain('a group with characters other than printable ASCII');
      expect(refused(caller({ username: 'zoë' }))).to.contain('printable ASCII');
      expect(refused(caller({ username: ' alice' }))).to.contain('printable ASCII');
      expect(refused(caller({ username: 'system:admin' }))).to.contain('reserved by Kubernetes');
      expect(refused(caller({ groups: ['sre', 'system:masters'] }))).to.contain('the group "system:masters" is reserved by Kubernetes');
      expect(refused(caller({ username: 'a'.repeat(257) }))).to.contain('longer than 256');
      expect(refused(caller({ groups: Array.from({ length: 101 }, (_, i) => `g${i}`) }))).to.contain('more than 100 groups');
      expect(refused(caller({ username: 'system:serviceaccount:kube-system:admin' }))).to.contain('reserved');
    });
  });

  describe('the API server’s 403', () => {
    it('names the user, verb, resource and namespace of the authorizer’s message', () => {
      const m = 'deployments.apps "web" is forbidden: User "alice" cannot patch resource "deployments" in API group "apps" in the namespace "prod"';
      expect(parseClusterRefusal(m)).to.deep.equal({ user: 'alice', verb: 'patch', resource: 'deployments', group: 'apps', namespace: 'prod' });
      const e = clusterForbidden(m, 'patch Deployment prod/web');
      expect(e.message).to.equal(`Kubernetes does not let alice patch deployments.apps in namespace "prod" (during patch Deployment prod/web): ${m}`);
      const nodes = 'nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope';
      expect(clusterForbidden(nodes, 'list Node').message).to.match(/^Kubernetes does not let bob list nodes at the cluster scope \(during list Node\)/);
      expect(parseClusterRefusal('forbidden: User "bob" cannot get path "/metrics"')).to.deep.equal({ user: 'bob', verb: 'get', path: '/metrics' });
    });

    it('a message that is not the authorizer’s (a webhook’s own words) is still a 403, naming the request', () => {
      const e = clusterForbidden('denied by policy engine', 'apply Service x/web');
      expect(e.message).to.equal('Kubernetes refused apply Service x/web (403 Forbidden): denied by policy engine');
      expect(e.details).to.deep.equal({ reason: 'Forbidden', code: 403 });
    });
  });

  describe('callerAwareCluster', () => {
    const ref: ResourceRef = { apiVersion: 'v1', kind: 'Pod', name: 'p', namespace: 'x' };

    it('makes each call with the client of the caller the work is for; no caller, or SVC_AUTH_TOKEN, is svc’s own client', async () => {
      const own = new FakeCluster();
      const clients = new FakeClients();
      const cluster = callerAwareCluster(own, clients);
      await actingFor(caller({ groups: ['sre'] }), async () => {
        await cluster.get(ref);
        // the caller travels with the async work, also past a timer
        await new Promise((r) => setTimeout(r, 1));
        await cluster.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'x' });
      });
      await cluster.get(ref);
      await actingFor(STATIC_TOKEN_CALLER, () => cluster.get(ref));
      await actingFor(caller({}), () => actingAsService(() => cluster.get(ref)));
      expect([...clients.made.keys()]).to.deep.equal(['alice|sre']);
      expect(clients.made.get('alice|sre')!.calls.map((c) => c.split(' ')[0])).to.deep.equal(['get', 'list']);
      expect(own.calls.map((c) => c.split(' ')[0])).to.deep.equal(['get', 'get', 'get']);
    });

    it('an identity that cannot be sent is a rejected call and a disconnected status, never a request', async () => {
      const clients = new FakeClients();
      const cluster = callerAwareCluster(new FakeCluster(), clients);
      const bad = caller({ username: 'eve\nImpersonate-User: admin' });
      expect(await actingFor(bad, () => rejection(cluster.get(ref)))).to.be.instanceOf(ForbiddenError);
      expect((await actingFor(bad, () => cluster.status())).connected).to.equal(false);
      expect(clients.made.size).to.equal(0);
    });
  });

  it('the capability scan runs with svc’s own identity even when a caller started it, and says so in its log line and spans', async () => {
    const seen: string[] = [];
    class SeeingCluster extends FakeCluster {
      override async listApiResources() {
        seen.push(`list:${actingCaller()?.username ?? 'svc'}`);
        return super.listApiResources();
      }
      override async getResourceSchema(apiVersion: string, kind: string) {
        seen.push(`schema:${actingCaller()?.username ?? 'svc'}`);
        return super.getResourceSchema(apiVersion, kind);
      }
    }
    const cluster = new SeeingCluster();
    cluster.resources = dozenKinds().slice(0, 2);
    const parts = orgDataParts({ cluster });
    await actingFor(caller({ username: 'root', roles: rolesUpTo('admin') }), () => parts.manage.execute({ dataType: 'capabilities', operation: 'scan' }));
    await parts.scan.idle();
    for (let i = 0; i < 5; i++) await tick();
    expect(seen).to.deep.equal(['list:root', 'schema:svc', 'schema:svc']);
    expect(parts.logger.lines.find((e) => e.msg === "capability scan runs with svc's own Kubernetes identity")?.fields).to.include({ kubeIdentity: 'svc' });
  });
});
