import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { webManifests } from '../support/deploy-kit.js';
import { serveGuardKinds } from '../../lab/sandbox/kube/kube-guard-kinds.js';
import { buildTestApp } from '../support/test-app.js';
import { WorkflowStandIns } from '../support/workflow-harness.js';

type Json = Record<string, any>;
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const PEOPLE = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789', root: 'root-token-0123456789' };
type Who = keyof typeof PEOPLE;
const bearer = (who: Who) => ({ Authorization: `Bearer ${PEOPLE[who]}` });

const clusterAdminBinding: KubeObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'web-admin' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'x' }],
};
const privilegedPod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'debug' },
  spec: { hostPID: true, containers: [{ name: 'debug', image: 'nginx:1.25', securityContext: { privileged: true } }] },
};

/**
 * deployManifests and the ledger's revert through the write guard on the real
 * app (issue 30 items 8 and 11): a scripted model whose recommendation and
 * manifests are hostile, the Kubernetes stand-in recording every request,
 * operators from a tokens file, SVC_REQUIRE_SECOND_APPROVER on. After every
 * refusal the stand-in received no persisted write, and the answer says why.
 */
describe('deployManifests and revert through the write guard, against the Kubernetes stand-in and a scripted model', function () {
  this.timeout(60000);
  let s: WorkflowStandIns;
  let unserve: () => void;
  beforeEach(async () => {
    unserve = serveGuardKinds();
    s = await WorkflowStandIns.start('openai');
    writeFileSync(path.join(s.dataDir, 'tokens'), `alice operator ${sha(PEOPLE.alice)}\nbob operator ${sha(PEOPLE.bob)}\nroot admin ${sha(PEOPLE.root)}\n`);
  });
  afterEach(async () => {
    await s.close();
    unserve();
  });

  /** The real app on the stand-ins with these settings; `call` as `who`. */
  async function app(extra: Record<string, string> = {}) {
    const t = buildTestApp(
      {
        ...s.env(),
        SVC_AUTH_TOKEN: undefined,
        SVC_AUTH_TOKENS_FILE: path.join(s.dataDir, 'tokens'),
        SVC_REQUIRE_SECOND_APPROVER: 'true',
        SVC_IMAGE_REGISTRIES: 'docker.io',
        ...extra,
      },
      s.overrides(),
    );
    await s.seedOrgData(t.container);
    const call = async (who: Who, tool: string, params: Record<string, unknown>, status = 200): Promise<Json> => {
      const res = await request(t.app).post(`/api/v1/tools/${tool}`).set(bearer(who)).send(params);
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      return status === 200 ? res.body.data.result : res.body;
    };
    return { ...t, call };
  }

  /** recommend -> ... -> generateManifests as `who`, with the model's recommendation also listing `extra` kinds. */
  async function generated(call: Awaited<ReturnType<typeof app>>['call'], extra: { kind: string; apiVersion: string }[] = []): Promise<string> {
    s.recommendation.solutions[0].resources.push(...extra.map((r) => ({ ...r, purpose: 'the model says it is needed' })));
    s.answer();
    const rec = await call('alice', 'recommend', { intent: 'an nginx web server for the shop front end, reachable inside the cluster' });
    const solutionId = rec.solutions[0].solutionId as string;
    await call('alice', 'chooseSolution', { solutionId });
    await call('alice', 'answerQuestion', { solutionId, stage: 'required', answers: { name: 'web', namespace: 'x', 'deployment-image': 'nginx:1.25' } });
    await call('alice', 'generateManifests', { solutionId });
    return solutionId;
  }

  const persisted = () => s.kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All');

  it('a ClusterRoleBinding the model slipped into the recommendation: high risk, the author gets 403, another operator applies it only with the digest of the preview; the ledger records the guard risk', async () => {
    const { call, app: express } = await app();
    s.manifests = [[...webManifests('web', 2), clusterAdminBinding]];
    const solutionId = await generated(call, [{ kind: 'ClusterRoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1' }]);

    const shown = await call('alice', 'deployManifests', { solutionId, preview: true });
    expect(shown.status).to.equal('previewed');
    const binding = shown.preview.find((p: Json) => p.kind === 'ClusterRoleBinding');
    expect(binding, JSON.stringify(shown.preview)).to.deep.include({ effect: 'create', risk: 'high' });
    expect(binding.riskReasons).to.include('ClusterRoleBinding is cluster-scoped: the change is cluster-wide');
    expect(binding.riskReasons.join(' ')).to.include('access control (RBAC)');
    expect(shown.preview.find((p: Json) => p.kind === 'Deployment')).to.deep.include({ effect: 'create', risk: 'medium' });
    expect(shown.message).to.include('1 of them high risk (ClusterRoleBinding web-admin)');
    expect(persisted()).to.deep.equal([]);

    // the author, with or without the digest: 403, nothing written
    const own = await call('alice', 'deployManifests', { solutionId, planDigest: shown.planDigest }, 403);
    expect(own.error.code).to.equal('FORBIDDEN');
    expect(own.error.message).to.include('needs a second approver: it includes a high-risk action');
    // another operator without the digest they reviewed: 400; with a stale one: 409
    const blind = await call('bob', 'deployManifests', { solutionId }, 400);
    expect(blind.error.message).to.include('send the planDigest you reviewed');
    const stale = await call('bob', 'deployManifests', { solutionId, planDigest: `sha256:${'a'.repeat(64)}` }, 409);
    expect(stale.error.code).to.equal('CONFLICT');
    expect(persisted()).to.deep.equal([]);
    // the refusals are counted by reason
    const metrics = (await request(express).get('/metrics').set(bearer('root'))).text;
    expect(metrics).to.match(/svc_refusals_total\{reason="risk"\} [1-9]/);

    // a live object appears after bob read the preview: his digest is stale, 409, nothing written; he previews again
    s.kube.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'x' }, spec: { selector: { app: 'other' }, ports: [{ port: 8080 }] } });
    const moved = await call('bob', 'deployManifests', { solutionId, planDigest: shown.planDigest }, 409);
    expect(moved.error.message).to.include('plan changed since it was read');
    expect(persisted()).to.deep.equal([]);
    const again = await call('bob', 'deployManifests', { solutionId, preview: true });
    expect(again.preview.find((p: Json) => p.kind === 'Service')).to.deep.include({ effect: 'update' });
    const dep = await call('bob', 'deployManifests', { solutionId, planDigest: again.planDigest, timeout: 5 });
    expect(['ready', 'timeout']).to.include(dep.status);
    expect(dep.planDigest).to.equal(again.planDigest);
    expect(s.kube.objects.has('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/web-admin')).to.equal(true);
    const entries = (await request(express).get('/api/v1/changes').query({ tool: 'deployManifests' }).set(bearer('root')).expect(200)).body.data.changes;
    expect(entries.map((e: Json) => [e.target.kind, e.risk]).sort()).to.deep.equal([
      ['ClusterRoleBinding', 'high'],
      ['Deployment', 'medium'],
      // the deploy rewrote the selector and ports of a Service that was already there: traffic moves, high
      ['Service', 'high'],
    ]);
  });

  it('a privileged Pod outside the chosen kinds is 400 before any request; a ClusterRoleBinding "in" namespace x the recommendation listed is cluster-wide and high: its author gets 403; nothing written', async () => {
    const { call } = await app();
    s.manifests = [[...webManifests('web', 2), privilegedPod]];
    const solutionId = await generated(call);
    const foreign = await call('alice', 'deployManifests', { solutionId }, 400);
    expect(foreign.error.code).to.equal('VALIDATION_ERROR');
    expect(foreign.error.message).to.include("deployManifests refuses Pod x/debug: the solution's resources are");
    expect(persisted()).to.deep.equal([]);

    s.manifests = [[...webManifests('web', 2), { ...clusterAdminBinding, metadata: { name: 'web-admin', namespace: 'x' } }]];
    const listed = await generated(call, [{ kind: 'ClusterRoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1' }]);
    // generateManifests drops the namespace of a kind discovery says is cluster-scoped: the binding is cluster-wide, svc's high, and its author alone cannot deploy it
    const dep = await call('alice', 'deployManifests', { solutionId: listed }, 403);
    expect(dep.error.message).to.include('needs a second approver: it includes a high-risk action');
    expect(persisted()).to.deep.equal([]);
  });

  it('revert through the guard: preview and digest, the author alone is 403 for a high-risk undo, an allow-list forbids it, a revert of a revert needs a digest', async () => {
    const first = await app({ SVC_REQUIRE_SECOND_APPROVER: 'false' });
    s.manifests = [webManifests('web', 2)];
    const solutionId = await generated(first.call);
    const dep = await first.call('alice', 'deployManifests', { solutionId, timeout: 5 });
    const [serviceId, deploymentId] = dep.ledgerIds as string[];
    const revert = (t: typeof first, who: Who, id: string, body: object = {}) =>
      request(t.app).post(`/api/v1/changes/${id}/revert`).set(bearer(who)).send(body);

    // the rule on: undoing the Deployment's creation deletes it, svc's high; alice made the change
    const ruled = await app();
    const preview = await revert(ruled, 'alice', deploymentId, { preview: true }).expect(200);
    const shown = preview.body.data;
    expect(shown.preview).to.deep.include({ method: 'delete', risk: 'high', secondApproverRequired: 'it includes a high-risk action' });
    expect(shown.preview.riskReasons).to.include('deletes a Deployment');
    expect(shown.planDigest).to.match(/^sha256:[0-9a-f]{64}$/);
    const writes = persisted().length;
    const own = await revert(ruled, 'alice', deploymentId, { planDigest: shown.planDigest }).expect(403);
    expect(own.body.error.message).to.include(`The revert of change ${deploymentId} needs a second approver`);
    const rootBlind = await revert(ruled, 'root', deploymentId).expect(400);
    expect(rootBlind.body.error.message).to.include('send the planDigest you reviewed');
    const rootStale = await revert(ruled, 'root', deploymentId, { planDigest: `sha256:${'b'.repeat(64)}` }).expect(409);
    expect(rootStale.body.error.code).to.equal('CONFLICT');
    expect(persisted().length).to.equal(writes);
    expect(s.kube.objects.has('/apis/apps/v1/namespaces/x/deployments/web')).to.equal(true);
    // the cleanup of the deploy goes the same way: its author alone deletes nothing high-risk, each object is kept saying why
    const cleaned = await ruled.call('alice', 'deployManifests', { solutionId, cleanup: true });
    expect(cleaned.status).to.equal('cleanup_incomplete');
    expect(cleaned.cleanup.map((c: Json) => [c.kind, c.outcome])).to.deep.equal([
      ['Deployment', 'kept'],
      ['Service', 'kept'],
    ]);
    expect(cleaned.cleanup[0].message).to.include('needs a second approver');
    expect(persisted().length).to.equal(writes);

    // an allow-list that no longer names Services refuses the undo of the Service's creation: 400 with the reason
    const narrow = await app({ SVC_REQUIRE_SECOND_APPROVER: 'false', SVC_WRITE_KINDS: 'apps/Deployment' });
    const refused = await revert(narrow, 'alice', serviceId).expect(400);
    expect(refused.body.error.code).to.equal('VALIDATION_ERROR');
    expect(refused.body.error.message).to.include('Service x/web is outside SVC_WRITE_KINDS (apps/Deployment)');
    expect(refused.body.error.details).to.deep.equal({ reason: 'OutsideWriteScope' });
    expect(persisted().length).to.equal(writes);

    // without the rule: the Service's undo runs; the undo of that undo re-creates it only for a preview's digest
    const undone = await revert(first, 'alice', serviceId).expect(200);
    expect(undone.body.data.revert).to.deep.include({ risk: 'high' });
    expect(s.kube.objects.has('/api/v1/namespaces/x/services/web')).to.equal(false);
    const again = persisted().length;
    const blind = await revert(first, 'alice', undone.body.data.revert.id).expect(400);
    expect(blind.body.error.message).to.include(`is itself the revert of ${serviceId}`);
    expect(persisted().length).to.equal(again);
    expect(s.kube.objects.has('/api/v1/namespaces/x/services/web')).to.equal(false);
    const back = (await revert(first, 'alice', undone.body.data.revert.id, { preview: true }).expect(200)).body.data;
    expect(back.preview).to.deep.include({ method: 'apply' });
    expect(persisted().length).to.equal(again);
    await revert(first, 'alice', undone.body.data.revert.id, { planDigest: back.planDigest }).expect(200);
    expect(s.kube.objects.has('/api/v1/namespaces/x/services/web')).to.equal(true);
  });
});
