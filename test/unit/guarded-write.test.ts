import { expect } from 'chai';
import { NO_POLICIES, type PolicySource, type StoredPolicies } from '../../application/actions/policy-source.js';
import { digestInputOf } from '../../application/guarded-write/digest-input.js';
import { GuardedWrite } from '../../application/guarded-write/guarded-write.js';
import { namespaceLabelsOf } from '../../application/guarded-write/namespace-labels.js';
import type { WriteRequest } from '../../application/guarded-write/write-request.js';
import { scopeSecretValues, withinSecretScope } from '../../application/security/secret-scope.js';
import { OPEN_WRITE_SCOPE, type WriteScope } from '../../domain/actions/write-scope.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import { DependencyError, ForbiddenError } from '../../domain/errors.js';
import type { NamedPolicy } from '../../domain/orgdata/policy-constraint.js';
import { parseKindName } from '../../domain/write-guard/kind-names.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

const WEB: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const web = (image = 'nginx:1.27', replicas = 2): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', resourceVersion: '41', uid: 'uid-web' },
  spec: { replicas, template: { spec: { containers: [{ name: 'web', image }] } } },
});
const SECRET_VALUE = 'hunter2-very-secret';
const secret: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', namespace: 'shop', resourceVersion: '7' },
  data: { password: Buffer.from('old-password-value').toString('base64') },
};
const AT_MOST_TWO: NamedPolicy = { id: 'pol-2', description: 'at most 2 replicas', constraints: [{ kind: 'Deployment', field: 'spec.replicas', maximum: 2 }] };
const held = (stored: StoredPolicies): PolicySource => ({ forText: async () => [], stored: async () => stored });
const scale = (replicas: number): WriteRequest => ({
  ref: WEB,
  operation: { method: 'patch', ref: WEB, patch: { spec: { replicas } }, patchType: 'merge' },
  label: 'low',
});

function pipeline(options: { scope?: WriteScope; policies?: PolicySource } = {}) {
  const cluster = new FakeCluster().put(web(), secret, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'shop' } } });
  const reads: ResourceRef[] = [];
  const get = cluster.get.bind(cluster);
  cluster.get = (ref) => (reads.push(ref), get(ref));
  const guard = new GuardedWrite({ reader: cluster, writer: cluster, scope: options.scope ?? OPEN_WRITE_SCOPE, policies: options.policies ?? NO_POLICIES });
  const check = async (request: WriteRequest) => guard.check(request, await guard.policies());
  return { cluster, reads, guard, check };
}

describe('GuardedWrite: the one guarded-write pipeline, step by step (fakes)', () => {
  it('an allowed write carries everything its callers need: target, risk, pins, effect, the operation as sent, the dry run and the diff', async () => {
    const { check, cluster, reads } = pipeline();
    const r = await check(scale(3));
    expect(r.refusal).to.equal(undefined);
    expect(r.target).to.deep.include({ group: 'apps', kind: 'Deployment', resource: 'deployments', namespace: 'shop' });
    expect(r).to.deep.include({ risk: 'low', riskReasons: [], sensitive: [], effect: 'update', resourceVersion: '41', changed: true });
    expect(r.uid, 'the uid is a pin of a delete only').to.equal(undefined);
    expect(r.diff).to.deep.equal([{ path: 'spec.replicas', from: 2, to: 3 }]);
    expect(r.dryRun?.object.spec).to.deep.include({ replicas: 3 });
    expect(r.operation).to.deep.include({ method: 'patch', patchType: 'merge' });
    // the live object, then its Namespace; nothing written
    expect(reads).to.deep.equal([WEB, { apiVersion: 'v1', kind: 'Namespace', name: 'shop' }]);
    expect(cluster.writes).to.deep.equal([]);
  });

  it('refuses before any read: a kind discovery does not serve, a caller rule, the allow-lists, an unsafe patch', async () => {
    const { check, reads } = pipeline({ scope: { namespaces: ['prod'], kinds: [] } });
    const unserved = await check({ ...scale(3), ref: { ...WEB, apiVersion: 'apps/v9' } });
    expect(unserved.refusal).to.deep.include({ reason: 'InvalidTarget' });
    expect(unserved).to.deep.include({ risk: 'high', riskReasons: ['the target could not be resolved from discovery'] });
    const outside = await check(scale(3));
    expect(outside.refusal?.reason).to.equal('OutsideWriteScope');
    expect(outside.refusal?.message).to.contain('outside SVC_WRITE_NAMESPACES (prod)');
    const admitted = await check({ ...scale(3), admit: () => ({ reason: 'OutsideSolution', message: 'not ours', causes: [] }) });
    expect(admitted.refusal).to.deep.include({ reason: 'OutsideSolution', message: 'not ours' });
    const copy = pipeline();
    const unsafe = await copy.check({
      ref: WEB,
      operation: { method: 'patch', ref: WEB, patchType: 'json', patch: [{ op: 'copy', from: '/spec', path: '/metadata/annotations/x' }] },
    });
    expect(unsafe.refusal?.reason).to.equal('UnsafePatch');
    expect(reads.concat(copy.reads)).to.deep.equal([]);
  });

  it('what the caller prepares against the live object is what is dry-run, and its refusal ends the check before the dry run', async () => {
    const { check, cluster } = pipeline();
    const pinned = await check({
      ...scale(3),
      prepare: (live) => ({ operation: { ...scale(3).operation, resourceVersion: live!.metadata.resourceVersion as string } }),
    });
    expect(pinned.operation).to.deep.include({ resourceVersion: '41' });
    cluster.calls.length = 0;
    const none = await check({
      ...scale(2),
      prepare: () => ({ operation: scale(2).operation, refusal: { reason: 'NoChange', message: 'nothing', causes: [] } }),
    });
    expect(none.refusal?.reason).to.equal('NoChange');
    expect(none).to.deep.include({ effect: 'update', resourceVersion: '41' });
    expect(cluster.calls.filter((c) => c.startsWith('dryRun'))).to.deep.equal([]);
  });

  it('the API server refusing the dry run, the guard refusing the result, a policy refusing it: each a refusal, the policy one with the judged risk and diff', async () => {
    const { check, cluster } = pipeline({ scope: { namespaces: [], kinds: [], imageRegistries: ['ghcr.io'] }, policies: held({ policies: [AT_MOST_TWO] }) });
    cluster.rejectDryRun = (w) =>
      w.ref.name === 'web' && JSON.stringify(w.body).includes('"replicas":7') ? { accepted: false, reason: 'Invalid', message: 'no', causes: [] } : undefined;
    expect((await check(scale(7))).refusal).to.deep.include({ reason: 'Invalid', message: 'no' });
    const image = await check({
      ref: WEB,
      operation: {
        method: 'patch',
        ref: WEB,
        patchType: 'strategic',
        patch: { spec: { template: { spec: { containers: [{ name: 'web', image: 'evil.example/x:1' }] } } } },
      },
    });
    expect(image.refusal?.reason).to.equal('ImageRegistry');
    const policy = await check(scale(5));
    expect(policy.refusal).to.deep.include({ reason: 'PolicyViolation' });
    expect(policy.refusal?.message).to.contain('at most 2 replicas');
    expect(policy.diff).to.deep.equal([{ path: 'spec.replicas', from: 2, to: 5 }]);
    expect(policy.dryRun, 'judged, so the dry run is there').to.not.equal(undefined);
    const unreadable = pipeline({ policies: held({ policies: [], unreadable: 'the store is down' }) });
    expect((await unreadable.check(scale(1))).refusal).to.deep.include({ reason: 'PoliciesUnreadable' });
    // a delete leaves nothing to check against a policy
    expect((await unreadable.check({ ref: WEB, operation: { method: 'delete', ref: WEB } })).refusal).to.equal(undefined);
  });

  it('a dependency failing during a step is a refusal that carries the error, for callers that answer failures as failures', async () => {
    const { check, cluster } = pipeline();
    const failure = new DependencyError('kubernetes', 'Kubernetes API failed get (503)');
    cluster.get = async () => {
      throw failure;
    };
    const r = await check(scale(3));
    expect(r.refusal).to.deep.include({ reason: 'Unavailable', message: 'the preview could not be made: Kubernetes API failed get (503)' });
    expect(r.refusal?.error).to.equal(failure);
  });

  it("one redaction: a Secret's values are *** in the diff and scrubbed from messages, and join the run's Secret scope", async () => {
    const { check, cluster } = pipeline();
    const ref: ResourceRef = { apiVersion: 'v1', kind: 'Secret', name: 'db', namespace: 'shop' };
    const write: WriteRequest = { ref, operation: { method: 'patch', ref, patchType: 'strategic', patch: { stringData: { password: SECRET_VALUE } } } };
    await withinSecretScope(async () => {
      const r = await check(write);
      expect(r.diff).to.deep.equal([{ path: 'stringData', to: { password: '***' } }]);
      expect(scopeSecretValues()).to.include(SECRET_VALUE);
      cluster.rejectDryRun = () => ({
        accepted: false,
        reason: 'Invalid',
        message: `bad value ${SECRET_VALUE}`,
        causes: [{ message: `value ${SECRET_VALUE}` }],
      });
      const refused = await check(write);
      expect(refused.refusal).to.deep.include({ message: 'bad value ***', causes: [{ message: 'value ***' }] });
    });
  });

  it('the digest input leaves out what the server assigns anew at each dry run, and changes with the live version', async () => {
    const { check, cluster } = pipeline();
    let n = 0;
    const dryRunPatch = cluster.dryRunPatch.bind(cluster);
    cluster.dryRunPatch = async (r, p, o) => {
      const v = await dryRunPatch(r, p, o);
      return v.accepted ? { ...v, object: { ...v.object, metadata: { ...v.object.metadata, uid: `assigned-${++n}` } } } : v;
    };
    const a = digestInputOf(await check(scale(3)));
    expect(digestInputOf(await check(scale(3)))).to.deep.equal(a);
    cluster.put({ ...web(), metadata: { ...web().metadata, resourceVersion: '42' } });
    expect(digestInputOf(await check(scale(3)))).to.not.deep.equal(a);
  });
});

describe("namespaceLabelsOf: the labels of the target's live Namespace for the guard", () => {
  const target = { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true, name: 'web', namespace: 'shop' };
  it('answers the labels; undefined when cluster-scoped, absent, or the Namespace cannot be read (403 either way, or failing)', async () => {
    const cluster = new FakeCluster().put({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    });
    expect(await namespaceLabelsOf(cluster, target)).to.deep.equal({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    expect(await namespaceLabelsOf(cluster, { ...target, namespace: 'absent' })).to.equal(undefined);
    expect(await namespaceLabelsOf(cluster, { ...target, kind: 'Node', namespaced: false, namespace: undefined })).to.equal(undefined);
    for (const failure of [new ForbiddenError('svc:alice may not get namespaces'), new DependencyError('kubernetes', '403 Forbidden')]) {
      cluster.get = async () => {
        throw failure;
      };
      expect(await namespaceLabelsOf(cluster, target)).to.equal(undefined);
    }
  });
});

describe('GuardedWrite is built with its scope and policies, never without', () => {
  it('a missing collaborator stops it at construction, naming it', () => {
    const cluster = new FakeCluster();
    for (const left of ['reader', 'writer', 'scope', 'policies'] as const) {
      const deps = {
        reader: cluster,
        writer: cluster,
        scope: { namespaces: [], kinds: [parseKindName('ConfigMap')] },
        policies: NO_POLICIES,
        [left]: undefined,
      };
      expect(() => new GuardedWrite(deps as never), left).to.throw(`GuardedWrite was built without its ${left}`);
    }
  });
});
