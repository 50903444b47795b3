import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import { KubeApiServer } from '../../infrastructure/sandbox/kube/kube-api-server.js';
import { PROVIDERS, startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { pollRun } from '../support/same-run.js';
import { auth, buildTestApp } from '../support/test-app.js';

type Json = Record<string, any>;
const WEB = '/apis/apps/v1/namespaces/x/deployments/web';

/**
 * The verdict answers in time (issue 41): a rollout healthy and stable for
 * SVC_VERIFY_STABLE_MS ends the window early; past SVC_VERIFY_ANSWER_MS the
 * answer carries the verdict so far and a follow-up run watches the rest,
 * reverting a change that turns out degraded and recording it on the session.
 * Real time, the Kubernetes stand-in, a scripted model.
 */
describe('verify answers in time: the stable early end and the answer cap', () => {
  let kube: KubeApiServer;
  let chat: ModelStandIn;
  let env: Record<string, string>;

  before(async () => {
    chat = await startModelStandIn(PROVIDERS[0]);
  });
  after(async () => {
    await chat.close();
  });
  beforeEach(async () => {
    kube = await KubeApiServer.start();
    kube.create(webManifest(2));
    kube.settle();
    env = { ...chat.env(), KUBECONFIG: kube.writeKubeconfig() };
    chat.requests.length = 0;
  });
  afterEach(async () => {
    await kube.close();
  });

  async function startOperate(app: Express): Promise<string> {
    chat.script({ content: 'ok' }, { content: planJson([scaleWeb(3)]) });
    return (await request(app).post('/api/v1/tools/operate').set(auth).send({ intent: 'scale web in x' }).expect(200)).body.data.result.sessionId;
  }

  it('a rollout healthy for SVC_VERIFY_STABLE_MS ends a 60 s window early, healthy: the answer comes in seconds', async () => {
    const { app } = buildTestApp({ ...env, SVC_VERIFY_WINDOW_MS: '60000', SVC_VERIFY_STABLE_MS: '300' });
    const sessionId = await startOperate(app);
    const t0 = Date.now();
    const done = (await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId, executeChoice: 1 }).expect(200)).body.data.result;
    const took = Date.now() - t0;
    const health = done.execution.outcome.health;
    expect(health).to.deep.include({ verdict: 'healthy', stable: true, windowMs: 60000 });
    expect(health.pending).to.equal(undefined);
    expect(health.observedMs).to.be.at.least(300).and.below(5000);
    expect(took).to.be.below(10_000);
    expect(done.status).to.equal('executed');
  });

  it('past SVC_VERIFY_ANSWER_MS the answer says the verdict so far and the run to follow; a later degraded verdict is reverted and recorded on the session', async () => {
    const { app } = buildTestApp({
      ...env,
      SVC_VERIFY_WINDOW_MS: '5000',
      SVC_VERIFY_STABLE_MS: '600000',
      SVC_VERIFY_ANSWER_MS: '300',
    });
    const sessionId = await startOperate(app);
    const t0 = Date.now();
    const done = (await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId, executeChoice: 1, onFailure: 'revert' }).expect(200)).body.data
      .result;
    expect(Date.now() - t0).to.be.below(4000);
    const health = done.execution.outcome.health;
    const ledgerId = done.execution.outcome.actions[0].ledgerId;
    expect(health).to.deep.include({ verdict: 'healthy', pending: true });
    expect(health.followUp.runId).to.match(/^run_[0-9a-f]{32}$/);
    expect(health.followUp.events).to.equal(`/api/v1/runs/${health.followUp.runId}/events`);
    expect(health.followUp.ledgerIds).to.deep.equal([ledgerId]);
    expect(health.summary).to.match(/^Verdict so far: healthy/);

    // the change goes bad after the answer: the follow-up run sees it, reverts it, and the session records it
    expect(kube.restartContainers('x', 'web-')).to.be.above(0);
    const run = await pollRun(app, auth, health.followUp.runId);
    expect(run).to.deep.include({ status: 'succeeded', tool: 'operate' });
    expect(run.result.verdict).to.equal('degraded');
    expect(run.result.reverted).to.have.length(1);
    expect(run.result.reverted[0].ledgerId).to.equal(ledgerId);
    expect(run.result.decidedAt).to.be.a('string');
    expect(run.progress.map((e: Json) => e.data.step).filter(Boolean)).to.include.members(['verdict', 'reverted']);
    expect(kube.objects.get(WEB)!.spec.replicas).to.equal(2);

    const change = (await request(app).get(`/api/v1/changes/${ledgerId}`).set(auth).expect(200)).body.data;
    expect(change.revertedBy).to.equal(run.result.reverted[0].revertId);
    let look: Json = {};
    for (let i = 0; i < 50; i++) {
      look = (await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId }).expect(200)).body.data.result;
      if (look.execution.outcome.health.pending !== true) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(look.execution.outcome.health).to.deep.include({ verdict: 'degraded', decidedAt: run.result.decidedAt });
    expect(look.status).to.equal('execution_failed');
  });
});
