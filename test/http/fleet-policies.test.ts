import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import { fleetWithModel, startFleet } from '../support/fleet-fixture.js';
import { planJson, scaleWeb } from '../support/operate-fixtures.js';
import { freshDataDir, ok, orgData } from '../support/orgdata-http.js';
import { auth, buildTestApp } from '../support/test-app.js';

const WEB = '/apis/apps/v1/namespaces/x/deployments/web';
const LABELS = 'clusters:\n  staging:\n    labels: {env: staging}\n  production:\n    labels: {env: production, region: eu}\n';

const policy = (description: string, clusters?: object) => ({
  description,
  triggers: ['scale web replicas'],
  rationale: 'capacity is planned per cluster',
  constraints: [{ kind: 'Deployment', field: 'spec.replicas', maximum: 3, message: 'at most 3 replicas' }],
  ...(clusters ? { clusters } : {}),
});

describe('per-cluster policies over HTTP: a policy limited to production holds writes there only (two sandbox clusters behind one kubeconfig)', function () {
  this.timeout(30000);
  const suite = fleetWithModel(() => startFleet(['staging', 'production'], LABELS));

  const app = (): Express => buildTestApp({ ...suite.chat.env(), ...suite.fleet.env, SVC_EMBEDDINGS_PROVIDER: 'local' }).app;
  const operate = (svc: Express, body: object) => request(svc).post('/api/v1/tools/operate').set(auth).send(body);
  /** Plans "scale web to 5" in `cluster`: the proposal as the guard judged it there. */
  const planScale = async (svc: Express, cluster: string) => {
    suite.chat.requests.length = 0;
    suite.chat.script({ content: 'web runs 2 replicas; scale it.' }, { content: planJson([scaleWeb(5)]) });
    return (await operate(svc, { intent: 'scale web in namespace x to 5 replicas', cluster }).expect(200)).body.data.result;
  };

  for (const [shape, clusters] of [
    ['names', { names: ['production'] }],
    ['selector', { selector: { env: 'production' } }],
  ] as const) {
    it(`limited by ${shape}: the write to production is refused, the same write executes in staging; the model sees the policy in production only`, async () => {
      const svc = app();
      const created = await ok(svc, { dataType: 'policy', operation: 'create', document: policy('Production web runs at most 3 replicas', clusters) });
      expect(created.item.clusters).to.deep.equal(clusters);

      const prod = await planScale(svc, 'production');
      expect(JSON.stringify(suite.chat.requests)).to.contain('Production web runs at most 3 replicas');
      expect(prod.proposal.actions[0].dryRun.reason).to.equal('PolicyViolation');
      expect(prod.proposal.actions[0].dryRun.message).to.contain('would break policy "Production web runs at most 3 replicas"');
      expect(prod.status).to.equal('needs_refinement');
      const refused = await operate(svc, { sessionId: prod.sessionId, executeChoice: 1, planDigest: prod.planDigest, cluster: 'production' });
      expect(refused.body.data?.result?.status ?? refused.body.error?.code).to.not.equal('executed');
      expect(suite.fleet.writes('production')).to.deep.equal([]);
      expect(suite.fleet.clusters.production.objects.get(WEB)!.spec.replicas).to.equal(2);

      const staged = await planScale(svc, 'staging');
      expect(JSON.stringify(suite.chat.requests)).to.not.contain('Production web runs at most 3 replicas');
      expect(staged.status).to.equal('awaiting_approval');
      expect(staged.proposal.actions[0].dryRun.reason).to.not.equal('PolicyViolation');
      const done = (await operate(svc, { sessionId: staged.sessionId, executeChoice: 1, planDigest: staged.planDigest, cluster: 'staging' }).expect(200)).body
        .data.result;
      expect(done.status).to.equal('executed');
      expect(suite.fleet.clusters.staging.objects.get(WEB)!.spec.replicas).to.equal(5);
      expect(suite.fleet.writes('production')).to.deep.equal([]);
    });
  }

  it('a policy with no limit still holds every cluster', async () => {
    const svc = app();
    await ok(svc, { dataType: 'policy', operation: 'create', document: policy('Web runs at most 3 replicas') });
    for (const cluster of ['staging', 'production']) expect((await planScale(svc, cluster)).proposal.actions[0].dryRun.reason).to.equal('PolicyViolation');
  });

  it('refuses (400, nothing stored) a name svc does not serve, one of another case, a selector matching nothing, and a limit on a pattern', async () => {
    const svc = app();
    const create = (document: object, dataType = 'policy') => orgData(svc, { dataType, operation: 'create', document }).expect(400);
    const unknown = await create(policy('p', { names: ['qa'] }));
    expect(unknown.body.error.message).to.equal('"qa" is not a cluster svc serves (one of staging, production)');
    const cased = await create(policy('p', { names: ['production', 'Production'] }));
    expect(cased.body.error.message).to.equal('"Production" is not a cluster svc serves (one of staging, production)');
    const nowhere = await create(policy('p', { selector: { env: 'qa' } }));
    expect(nowhere.body.error.message).to.contain('no cluster matches selector {"env":"qa"}: the policy would apply nowhere');
    expect(nowhere.body.error.message).to.contain('production {"env":"production","region":"eu"}');
    await create(policy('p', {}));
    await create(policy('p', { selector: {} }));
    const pattern = await create(
      { description: 'p', triggers: ['t'], rationale: 'r', suggestedResources: ['Deployment'], clusters: { names: ['staging'] } },
      'pattern',
    );
    expect(JSON.stringify(pattern.body.error)).to.contain('only a policy is limited to clusters');
    expect((await ok(svc, { dataType: 'policy', operation: 'list' })).total).to.equal(0);
  });

  it('a write with no cluster in the fleet is refused before the model or either cluster is asked, whatever the policies', async () => {
    const svc = app();
    await ok(svc, { dataType: 'policy', operation: 'create', document: policy('Production web runs at most 3 replicas', { names: ['production'] }) });
    const res = await operate(svc, { intent: 'scale web in namespace x to 5 replicas' }).expect(400);
    expect(res.body.error.message).to.contain('svc serves 2 clusters (staging, production)');
    expect(suite.chat.requests).to.deep.equal([]);
    expect(suite.fleet.writes('staging')).to.deep.equal([]);
    expect(suite.fleet.writes('production')).to.deep.equal([]);
  });
});

describe('per-cluster policies without SVC_CLUSTERS', () => {
  it('a policy limited to clusters is refused (400): svc serves one cluster, with no name or labels to match', async () => {
    const { app } = buildTestApp({ SVC_DATA_DIR: freshDataDir(), SVC_EMBEDDINGS_PROVIDER: 'local' });
    const res = await orgData(app, { dataType: 'policy', operation: 'create', document: policy('p', { names: ['production'] }) }).expect(400);
    expect(res.body.error.message).to.contain('SVC_CLUSTERS is not set');
    await ok(app, { dataType: 'policy', operation: 'create', document: policy('p') });
  });
});
