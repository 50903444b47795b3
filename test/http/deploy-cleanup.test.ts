import { expect } from 'chai';
import request from 'supertest';
import type { RecordedRequest } from '../../lab/sandbox/kube/kube-api-server.js';
import { statusBody } from '../../lab/sandbox/kube/kube-writes.js';
import { auth } from '../support/test-app.js';
import { runWorkflow, WorkflowStandIns } from '../support/workflow-harness.js';

type Json = Record<string, any>;
const SERVICE = '/api/v1/namespaces/x/services/web';
const DEPLOYMENT = '/apis/apps/v1/namespaces/x/deployments/web';

/** The Deployment's persisted apply is refused, as an admission webhook would: the deploy stops after the Service. */
const denyDeployment = (r: RecordedRequest) =>
  r.method === 'PATCH' && r.path === DEPLOYMENT && r.query.get('dryRun') !== 'All'
    ? { status: 403, body: statusBody(403, 'Forbidden', 'admission webhook "policy.example.com" denied the request') }
    : undefined;

/** deployManifests stopping half-way, then `cleanup: true` (real app, the Kubernetes stand-in, a scripted model, the file ledger). */
describe('deployManifests cleans up what a failed deploy created, and only that', () => {
  let s: WorkflowStandIns;
  beforeEach(async () => {
    s = await WorkflowStandIns.start('openai');
  });
  afterEach(async () => {
    await s.close();
  });

  const persisted = () => s.kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All');

  it('a failure at the second object: the first is applied, recorded and answered; cleanup deletes exactly it through the ledger; again is a 409', async () => {
    const t = await s.app();
    s.kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unrelated', namespace: 'x' }, data: { keep: 'me' } });
    s.kube.intercept = denyDeployment;
    // an admission webhook that warns on stored writes only: the answer carries the persisted apply's own headers
    s.kube.admissionWarnings = (o, dryRun) => (dryRun ? [] : [`${o.kind} ${o.metadata.name}: namespace x is at 90% of its quota`]);
    s.answer();
    const steps = await runWorkflow(t.call, undefined, { timeout: 5 });
    const dep = steps.at(-1)!.result;
    expect(dep.status).to.equal('apply_failed');
    expect(dep.applied.map((o: Json) => [o.kind, o.outcome])).to.deep.equal([
      ['Service', 'created'],
      ['Deployment', 'failed'],
    ]);
    const [service, deployment] = dep.applied;
    expect(service.warnings).to.deep.equal(['Service web: namespace x is at 90% of its quota']);
    expect(deployment.message).to.contain('admission webhook "policy.example.com" denied the request').and.contain(deployment.ledgerId);
    expect(dep.ledgerIds).to.deep.equal([service.ledgerId, deployment.ledgerId]);
    expect(dep.cleanup).to.deep.equal({
      created: [{ apiVersion: 'v1', kind: 'Service', name: 'web', namespace: 'x', ledgerId: service.ledgerId }],
      call: { tool: 'deployManifests', params: { solutionId: dep.solutionId, cleanup: true } },
    });
    expect(dep.message).to.contain('deployManifests with cleanup: true deletes the 1 object(s) this run created');
    expect(dep.nextSteps.map((n: Json) => n.params)).to.deep.include({ solutionId: dep.solutionId, cleanup: true });
    expect(s.kube.objects.has(SERVICE)).to.equal(true);
    expect(s.kube.objects.has(DEPLOYMENT)).to.equal(false);

    const before = persisted().length;
    const cleaned = await t.call('deployManifests', dep.cleanup.call.params);
    expect(cleaned.status).to.equal('cleaned_up');
    expect(cleaned.cleanup).to.have.length(1);
    expect(cleaned.cleanup[0]).to.deep.include({ kind: 'Service', name: 'web', namespace: 'x', outcome: 'deleted', ledgerId: service.ledgerId });
    // one DELETE of the Service, pinned to the version the revert read; nothing else written
    const written = persisted().slice(before);
    expect(written.map((r) => [r.method, r.path])).to.deep.equal([['DELETE', SERVICE]]);
    expect(JSON.parse(written[0].body!).preconditions.resourceVersion).to.be.a('string');
    expect(s.kube.objects.has(SERVICE)).to.equal(false);
    expect(s.kube.objects.get('/api/v1/namespaces/x/configmaps/unrelated')?.data).to.deep.equal({ keep: 'me' });
    const revert = (await request(t.app).get(`/api/v1/changes/${cleaned.cleanup[0].revertId}`).set(auth).expect(200)).body.data;
    // the ledger records the DELETE as sent, its DeleteOptions with the precondition
    expect(revert).to.deep.include({ type: 'revert', revertOf: service.ledgerId, change: { method: 'delete', body: JSON.parse(written[0].body!) } });
    expect(cleaned.nextSteps.map((n: Json) => n.params.cleanup)).to.deep.equal([undefined]);

    const again = await t.call('deployManifests', dep.cleanup.call.params, 409);
    expect(again.error.message).to.contain('were already deleted').and.contain(`Service web by ${cleaned.cleanup[0].revertId}`);
    expect(persisted().length).to.equal(before + 1);
  });

  it('a created object changed since the deploy is kept (the ledger revert refuses), and one that existed before is never deleted', async () => {
    const t = await s.app();
    s.kube.intercept = denyDeployment;
    s.answer();
    const dep = (await runWorkflow(t.call, undefined, { timeout: 5 })).at(-1)!.result;
    expect(dep.status).to.equal('apply_failed');
    // someone edits the Service the deploy created
    s.kube.update(s.kube.objects.get(SERVICE)!, (o) => (o.metadata.labels = { ...o.metadata.labels, owner: 'someone-else' }));
    const before = persisted().length;
    const kept = await t.call('deployManifests', { solutionId: dep.solutionId, cleanup: true });
    expect(kept.status).to.equal('cleanup_incomplete');
    expect(kept.cleanup[0]).to.deep.include({ kind: 'Service', outcome: 'kept' });
    expect(kept.cleanup[0].message).to.contain('changed since').and.contain('force: true');
    expect(persisted().length).to.equal(before);
    expect(s.kube.objects.has(SERVICE)).to.equal(true);

    // deploy again: the Service now exists before the run, so it is not this run's to delete
    // (server-side apply leaves the label svc does not own: the Service is as svc applies it)
    s.kube.intercept = denyDeployment;
    const again = await t.call('deployManifests', { solutionId: dep.solutionId, timeout: 5 });
    expect(again.applied.map((o: Json) => [o.kind, o.outcome])).to.deep.equal([
      ['Service', 'unchanged'],
      ['Deployment', 'failed'],
    ]);
    expect(again.cleanup).to.equal(undefined);
    const none = await t.call('deployManifests', { solutionId: dep.solutionId, cleanup: true }, 409);
    expect(none.error.message).to.contain('created no object');
    expect(s.kube.objects.has(SERVICE)).to.equal(true);
  });
});
