import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import { describeEvent } from '../../interfaces/cli/run-watch.js';
import { KubeApiServer, type Intercept, type RecordedRequest } from '../../lab/sandbox/kube/kube-api-server.js';
import { statusBody } from '../../lab/sandbox/kube/kube-writes.js';
import type { ChatReply } from '../support/scripted-model.js';
import { PROVIDERS, startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { analysisAnswer, containerPatch, verifiedAnswer } from '../support/remediation-fixtures.js';
import { pollRun } from '../support/same-run.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { webManifests } from '../support/deploy-kit.js';
import { runWorkflow, WorkflowStandIns } from '../support/workflow-harness.js';

type Json = Record<string, any>;
const WEB = '/apis/apps/v1/namespaces/x/deployments/web';
const TARGET = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };
const plan = (...actions: Record<string, unknown>[]): ChatReply => ({ content: planJson(actions) });
const badImage = {
  type: 'patch',
  target: TARGET,
  patch: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:does-not-exist', ports: [{ containerPort: 80 }] }] } } } },
  description: 'Use nginx:does-not-exist',
  risk: 'medium',
  rationale: 'asked',
};
/** The persisted (not dry-run) PATCHes of web: the write, then any revert. */
const persistedPatch = (r: RecordedRequest) => r.method === 'PATCH' && r.path === WEB && r.query.get('dryRun') !== 'All';

/**
 * Verify or revert (docs/verify.md) over HTTP: the real app, the Kubernetes
 * stand-in, a scripted model, the file ledger, a 30 ms settle window.
 */

/** The Deployment x/api the remediate cases fix (a second workload beside web). */
const apiDeployment = (image: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'api', namespace: 'x', labels: { app: 'api' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'api' } },
    template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'app', image }] } },
  },
});
describe('verify or revert: the deterministic verdict after an execution', () => {
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
    kube.tickSeconds = 300; // a failing rollout passes its 600 s progress deadline within a few reads
    env = { ...chat.env(), KUBECONFIG: kube.writeKubeconfig() };
    chat.requests.length = 0;
  });
  afterEach(async () => {
    await kube.close();
  });

  const image = () => kube.objects.get(WEB)!.spec.template.spec.containers[0].image;
  const change = async (app: Express, id: string) => (await request(app).get(`/api/v1/changes/${id}`).set(auth).expect(200)).body.data;
  /** operate: plan `actions`, then execute with `extra` (onFailure...). */
  async function operate(app: Express, actions: Record<string, unknown>[], extra: Json = {}): Promise<Json> {
    chat.script({ content: 'ok' }, plan(...actions));
    const start = (await request(app).post('/api/v1/tools/operate').set(auth).send({ intent: 'change web in x' }).expect(200)).body.data.result;
    const done = await request(app)
      .post('/api/v1/tools/operate')
      .set(auth)
      .send({ sessionId: start.sessionId, executeChoice: 1, ...extra });
    expect(done.status, JSON.stringify(done.body)).to.equal(200);
    return done.body.data.result;
  }
  /** Runs `act` once, on the first request after svc's write of web (between the write and any revert). */
  function afterWrite(act: () => void): void {
    let written = false;
    let done = false;
    kube.intercept = (r): Intercept | undefined => {
      if (done) return undefined;
      if (persistedPatch(r)) written = true;
      else if (written) {
        done = true;
        act();
      }
      return undefined;
    };
  }

  describe('operate', () => {
    it('healthy stays: a scale that rolls out is verified healthy and kept', async () => {
      const { app } = buildTestApp(env);
      const result = await operate(app, [scaleWeb(3)], { onFailure: 'revert' });
      expect(result.status).to.equal('executed');
      const health = result.execution.outcome.health;
      expect(health).to.deep.include({ verdict: 'healthy', onFailure: 'revert', windowMs: 30 });
      expect(health.evidence).to.deep.equal(['Deployment x/web: successfully rolled out (3 of 3 replicas available)']);
      expect(health.reverted).to.equal(undefined);
      expect(health.observations).to.be.at.least(1);
      expect(kube.objects.get(WEB)!.spec.replicas).to.equal(3);
      expect(kube.requests.filter(persistedPatch)).to.have.length(1);
    });

    it('degraded reverts with onFailure revert: the image comes back, and the change and its revert are linked both ways', async () => {
      const { app } = buildTestApp(env);
      const result = await operate(app, [badImage], { onFailure: 'revert' });
      expect(result.status).to.equal('execution_failed');
      const health = result.execution.outcome.health;
      expect(health.verdict).to.equal('degraded');
      expect(health.evidence.join('\n')).to.match(
        /Deployment x\/web: (rollout failed|container web of pod web-[a-z0-9-]+ is waiting in ImagePullBackOff|Warning Failed)/,
      );
      const ledgerId = result.execution.outcome.actions[0].ledgerId;
      expect(health.reverted).to.have.length(1);
      expect(health.reverted[0]).to.deep.include({ ledgerId, target: TARGET });
      expect(health.notReverted).to.equal(undefined);
      expect(image()).to.equal('nginx:1.27');
      expect((await change(app, ledgerId)).revertedBy).to.equal(health.reverted[0].revertId);
      expect(await change(app, health.reverted[0].revertId)).to.deep.include({ type: 'revert', revertOf: ledgerId });
      expect(result.nextStep).to.match(/made things worse .*; svc reverted it\. Reverted chg_\S+ by chg_/);
      // the write, then its revert, pinned to a resourceVersion
      const patches = kube.requests.filter(persistedPatch);
      expect(patches).to.have.length(2);
      expect(JSON.parse(patches[1].body!).metadata.resourceVersion).to.be.a('string');
    });

    it('reports with onFailure report (the manual default): left in place, with the call that reverts, which works', async () => {
      const { app } = buildTestApp(env);
      const result = await operate(app, [badImage]);
      const health = result.execution.outcome.health;
      expect(health).to.deep.include({ verdict: 'degraded', onFailure: 'report' });
      const ledgerId = result.execution.outcome.actions[0].ledgerId;
      expect(health.revertCalls).to.deep.equal([
        { ledgerId, method: 'POST', path: `/api/v1/changes/${ledgerId}/revert`, body: {}, cli: `svc changes revert ${ledgerId}` },
      ]);
      expect(health.reverted).to.equal(undefined);
      expect(image()).to.equal('nginx:does-not-exist');
      expect(result.nextStep).to.contain(`svc changes revert ${ledgerId}`).and.contain(`POST /api/v1/changes/${ledgerId}/revert {}`);
      expect((await change(app, ledgerId)).revertedBy).to.equal(undefined);
      const call = health.revertCalls[0];
      const reverted = await request(app).post(call.path).set(auth).send(call.body).expect(200);
      expect(image()).to.equal('nginx:1.27');
      expect((await change(app, ledgerId)).revertedBy).to.equal(reverted.body.data.revert.id);
    });

    it('SVC_ON_FAILURE_DEFAULT=revert makes revert the default; onFailure without executeChoice 1 is a 400', async () => {
      const { app } = buildTestApp({ ...env, SVC_ON_FAILURE_DEFAULT: 'revert' });
      const result = await operate(app, [badImage]);
      expect(result.execution.outcome.health).to.deep.include({ verdict: 'degraded', onFailure: 'revert' });
      expect(image()).to.equal('nginx:1.27');
      const refused = await request(app).post('/api/v1/tools/operate').set(auth).send({ intent: 'x', onFailure: 'revert' }).expect(400);
      expect(refused.body.error.message).to.equal('onFailure goes with executeChoice 1 (and a sessionId)');
      expect(() => buildTestApp({ ...env, SVC_ON_FAILURE_DEFAULT: 'undo' })).to.throw(/SVC_ON_FAILURE_DEFAULT.*revert, report/);
    });

    it('a change someone else made between the write and the revert is not overwritten: reported, with kubectl as the last resort', async () => {
      const { app } = buildTestApp(env);
      // someone scales web while svc watches it
      afterWrite(() => kube.update(kube.objects.get(WEB)!, (d) => (d.spec.replicas = 4)));
      const result = await operate(app, [badImage], { onFailure: 'revert' });
      const health = result.execution.outcome.health;
      expect(health.verdict).to.equal('degraded');
      expect(health.reverted).to.deep.equal([]);
      expect(health.notReverted).to.have.length(1);
      const [kept] = health.notReverted;
      expect(kept.ledgerId).to.equal(result.execution.outcome.actions[0].ledgerId);
      expect(kept.reason).to.match(/^Deployment\/web changed since chg_\S+ .*send force: true/);
      expect(kept.kubectl[0]).to.match(/^kubectl patch deployment\.v1\.apps\/web -n x --type=merge -p '\{"spec":\{"template":/);
      expect(kept.kubectl[1]).to.equal('kubectl rollout undo deployment/web -n x');
      // their change stands, and so does svc's: nothing was forced
      expect(kube.objects.get(WEB)!.spec.replicas).to.equal(4);
      expect(image()).to.equal('nginx:does-not-exist');
      expect(kube.requests.filter(persistedPatch)).to.have.length(1);
      expect(result.nextStep).to.match(/could NOT revert all of it/);
    });

    it('a revert that itself fails is said plainly: both entries stay in the ledger, with the kubectl commands', async () => {
      const { app } = buildTestApp(env);
      let patches = 0;
      kube.intercept = (r) =>
        persistedPatch(r) && ++patches === 2
          ? { status: 403, body: statusBody(403, 'Forbidden', 'admission webhook "freeze.example.com" denied the request') }
          : undefined;
      const result = await operate(app, [badImage], { onFailure: 'revert' });
      const health = result.execution.outcome.health;
      expect(health.verdict).to.equal('degraded');
      const ledgerId = result.execution.outcome.actions[0].ledgerId;
      expect(health.notReverted).to.have.length(1);
      const [failed] = health.notReverted;
      expect(failed.reason).to.match(/^The undo of chg_\S+ was refused by the API server: .*freeze\.example\.com/);
      expect(failed.revertId).to.match(/^chg_/);
      expect(failed.kubectl).to.include('kubectl rollout undo deployment/web -n x');
      const revertEntry = await change(app, failed.revertId);
      expect(revertEntry).to.deep.include({ type: 'revert', revertOf: ledgerId });
      expect(revertEntry.outcome.status).to.not.equal('applied');
      expect((await change(app, ledgerId)).outcome.status).to.equal('applied');
      expect((await change(app, ledgerId)).revertedBy).to.equal(undefined);
      expect(image()).to.equal('nginx:does-not-exist');
      expect(result.status).to.equal('execution_failed');
      expect(result.nextStep).to.match(/could NOT revert all of it.*by hand, as a last resort: kubectl patch/);
    });

    it('containers restarted on demand after a healthy scale: degraded by the restarts, reverted', async () => {
      const { app } = buildTestApp(env);
      afterWrite(() => expect(kube.restartContainers('x', 'web-')).to.be.above(0));
      const result = await operate(app, [scaleWeb(3)], { onFailure: 'revert' });
      const health = result.execution.outcome.health;
      expect(health.verdict).to.equal('degraded');
      expect(health.evidence.join('\n')).to.match(/container web of pod web-\S+ (restarted 1 time\(s\) since the change|is waiting in CrashLoopBackOff)/);
      expect(health.reverted).to.have.length(1);
      expect(kube.objects.get(WEB)!.spec.replicas).to.equal(2);
    });

    it('a Warning event emitted on demand on the Deployment: degraded, reported', async () => {
      const { app } = buildTestApp(env);
      afterWrite(() => kube.warn(WEB, 'FailedCreate', 'pods "web-x" is forbidden: exceeded quota: compute'));
      const result = await operate(app, [scaleWeb(3)]);
      const health = result.execution.outcome.health;
      expect(health.verdict).to.equal('degraded');
      expect(health.evidence).to.include('Deployment x/web: Warning FailedCreate on Deployment web: pods "web-x" is forbidden: exceeded quota: compute');
      expect(health.revertCalls).to.have.length(1);
      expect(kube.objects.get(WEB)!.spec.replicas).to.equal(3);
    });

    it('an async run streams the verdict steps as verify events; the CLI words them', async () => {
      const { app } = buildTestApp(env);
      chat.script({ content: 'ok' }, plan(badImage));
      const start = (await request(app).post('/api/v1/tools/operate').set(auth).send({ intent: 'change web in x' }).expect(200)).body.data.result;
      const accepted = await request(app)
        .post('/api/v1/tools/operate')
        .set(auth)
        .set('Prefer', 'respond-async')
        .send({ sessionId: start.sessionId, executeChoice: 1, onFailure: 'revert' })
        .expect(202);
      const runId = accepted.body.data.runId;
      const run = await pollRun(app, auth, runId);
      expect(run.status).to.equal('succeeded');
      const steps = run.progress.filter((e: Json) => e.type === 'verify');
      expect(steps.map((e: Json) => e.data.step)).to.include.members(['snapshot', 'observed', 'verdict', 'reverted']);
      const verdict = steps.find((e: Json) => e.data.step === 'verdict');
      expect(verdict.data.verdict).to.equal('degraded');
      expect(describeEvent(verdict)).to.match(/^verify: verdict degraded: Deployment x\/web: /);
      const reverted = steps.find((e: Json) => e.data.step === 'reverted');
      expect(describeEvent(reverted)).to.match(/^verify: reverted chg_\S+ by chg_\S+$/);
      expect(describeEvent({ type: 'verify', data: { step: 'revert-failed', ledgerId: 'chg_1', reason: 'changed since' } })).to.equal(
        'verify: could NOT revert chg_1: changed since',
      );
      expect(image()).to.equal('nginx:1.27');
    });
  });

  describe('remediate', () => {
    it('automatic mode reverts a fix that makes things worse (revert is its default); the model, told the verdict as data, cannot turn it into success', async () => {
      kube.create(apiDeployment('nginx:1.27'));
      kube.settle();
      const API = '/apis/apps/v1/namespaces/x/deployments/api';
      const fix = { ...containerPatch('nginx:does-not-exist', 'medium'), target: { ...TARGET, name: 'api' } };
      chat.script({ content: 'api looks slow' }, { content: analysisAnswer({ actions: [fix] }) }, { content: verifiedAnswer(true) });
      const { app } = buildTestApp(env);
      const view = (
        await request(app)
          .post('/api/v1/tools/remediate')
          .set(auth)
          .send({ issue: 'api in namespace x is slow', mode: 'automatic', maxRiskLevel: 'medium' })
          .expect(200)
      ).body.data.result;
      expect(view.automaticExecution.executed).to.equal(true);
      const health = view.execution.outcome.health;
      expect(health).to.deep.include({ verdict: 'degraded', onFailure: 'revert' });
      expect(health.reverted).to.have.length(1);
      expect(kube.objects.get(API)!.spec.template.spec.containers[0].image).to.equal('nginx:1.27');
      // the model said resolved; svc's verdict decides
      expect(view.verification.resolved).to.equal(true);
      expect(view.status).to.equal('execution_failed');
      expect(view.message).to.match(/svc's verdict: degraded/);
      const check = JSON.stringify(chat.requests.at(-1));
      expect(check).to.contain('svc_verdict').and.contain('verdict: degraded').and.contain('reverted: chg_');
    });

    it('manual execute, degraded: reported by default (report), left in place, with the revert call as the next step', async () => {
      const fix = { ...containerPatch('nginx:does-not-exist', 'medium'), target: TARGET, patch: badImage.patch };
      chat.script({ content: 'web looks slow' }, { content: analysisAnswer({ actions: [fix] }) }, { content: verifiedAnswer(true) });
      const { app } = buildTestApp(env);
      const start = (await request(app).post('/api/v1/tools/remediate').set(auth).send({ issue: 'web in namespace x is slow' }).expect(200)).body.data.result;
      const view = (await request(app).post('/api/v1/tools/remediate').set(auth).send({ sessionId: start.sessionId, executeChoice: 1 }).expect(200)).body.data
        .result;
      const health = view.execution.outcome.health;
      expect(health).to.deep.include({ verdict: 'degraded', onFailure: 'report' });
      const ledgerId = view.execution.outcome.report.outcomes[0].ledgerId;
      expect(health.revertCalls.map((c: Json) => c.cli)).to.deep.equal([`svc changes revert ${ledgerId}`]);
      expect(image()).to.equal('nginx:does-not-exist');
      expect(view.status).to.equal('execution_failed');
      expect(view.nextStep).to.equal(`Revert it: svc changes revert ${ledgerId}; or start a new investigation with remediate and an issue.`);
    });

    it('manual execute with onFailure report: left in place, the revert call in the answer; healthy when the fix works', async () => {
      kube.create(apiDeployment('nginx:9.9-missing'));
      kube.tick(3);
      const fix = { ...containerPatch('nginx:1.27', 'medium'), target: { ...TARGET, name: 'api' } };
      chat.script({ content: 'bad tag' }, { content: analysisAnswer({ actions: [fix] }) }, { content: verifiedAnswer(true) });
      const { app } = buildTestApp(env);
      const start = (await request(app).post('/api/v1/tools/remediate').set(auth).send({ issue: 'api in namespace x is down' }).expect(200)).body.data.result;
      const bad = await request(app).post('/api/v1/tools/remediate').set(auth).send({ sessionId: start.sessionId, onFailure: 'revert' }).expect(400);
      expect(bad.body.error.message).to.match(/^onFailure goes with executeChoice 1/);
      const view = (
        await request(app).post('/api/v1/tools/remediate').set(auth).send({ sessionId: start.sessionId, executeChoice: 1, onFailure: 'report' }).expect(200)
      ).body.data.result;
      // the old pod was failing before the fix: not held against it; the new one runs
      expect(view.execution.outcome.health).to.deep.include({ verdict: 'healthy', onFailure: 'report' });
      expect(view.status).to.equal('executed');
      expect(view.message).to.match(/svc's verdict: Verified: every changed object is healthy/);
    });
  });

  describe('deployManifests', () => {
    let w: WorkflowStandIns;
    beforeEach(async () => {
      w = await WorkflowStandIns.start(PROVIDERS[0]);
    });
    afterEach(async () => {
      await w.close();
    });
    const DEPLOYMENT = '/apis/apps/v1/namespaces/x/deployments/web';
    const SERVICE = '/api/v1/namespaces/x/services/web';

    it('healthy stays: a deploy that becomes ready is verified healthy (the Service has endpoints) and kept', async () => {
      const t = await w.app();
      w.answer();
      const dep = (await runWorkflow(t.call, undefined, { timeout: 60, onFailure: 'revert' })).at(-1)!.result;
      expect(dep.status).to.equal('ready');
      expect(dep.health).to.deep.include({ verdict: 'healthy', onFailure: 'revert' });
      expect(dep.health.objects.map((o: Json) => [o.target.kind, o.health])).to.have.deep.members([
        ['Deployment', 'healthy'],
        ['Service', 'healthy'],
      ]);
      expect(dep.message).to.equal(undefined);
      expect(w.kube.objects.has(DEPLOYMENT) && w.kube.objects.has(SERVICE)).to.equal(true);
    });

    it('degraded reverts with onFailure revert: what the deploy created is deleted again, newest first, through the ledger', async () => {
      w.manifests = [webManifests('web', 2, 'ghcr.io/acme/missing:1')];
      const t = await w.app();
      w.answer();
      const dep = (await runWorkflow(t.call, undefined, { timeout: 5, onFailure: 'revert' })).at(-1)!.result;
      expect(dep.status).to.equal('timeout');
      expect(dep.health.verdict).to.equal('degraded');
      expect(dep.health.reverted.map((r: Json) => r.ledgerId)).to.deep.equal([...dep.ledgerIds].reverse());
      expect(w.kube.objects.has(DEPLOYMENT)).to.equal(false);
      expect(w.kube.objects.has(SERVICE)).to.equal(false);
      expect(dep.message).to.match(/The change made things worse .*; svc reverted it\./);
      for (const r of dep.health.reverted) expect((await change(t.app, r.ledgerId)).revertedBy).to.equal(r.revertId);
    });

    it('a later verdict (the answer came first) is recorded on the ledger: a verdict entry on each object the deploy wrote', async () => {
      const env = w.env.bind(w);
      w.env = () => ({ ...env(), SVC_VERIFY_WINDOW_MS: '60000', SVC_VERIFY_STABLE_MS: '5000', SVC_VERIFY_ANSWER_MS: '1' });
      const t = await w.app();
      w.answer();
      const dep = (await runWorkflow(t.call, undefined, { timeout: 60 })).at(-1)!.result;
      expect(dep.status).to.equal('ready');
      expect(dep.health).to.deep.include({ pending: true });
      let verdicts: Json[] = [];
      for (let i = 0; i < 100 && verdicts.length < dep.ledgerIds.length; i++) {
        await new Promise((r) => setTimeout(r, 20));
        verdicts = (await request(t.app).get('/api/v1/changes').query({ type: 'verdict' }).set(auth).expect(200)).body.data.changes;
      }
      expect(verdicts.map((v) => v.verdictOf)).to.have.members(dep.ledgerIds);
      for (const v of verdicts) expect(v).to.deep.include({ tool: 'deployManifests', outcome: { status: 'judged' } });
      expect(verdicts.map((v) => v.verdict.health)).to.have.members(['healthy', 'healthy']);
      for (const id of dep.ledgerIds) expect((await change(t.app, id)).laterVerdict.health).to.equal('healthy');
      expect((await request(t.app).get('/api/v1/changes/integrity').set(auth).expect(200)).body.data.ok).to.equal(true);
    });

    it('onFailure goes with a deploy, not with cleanup', async () => {
      const t = await w.app();
      const refused = await t.call('deployManifests', { solutionId: `sol_${'a'.repeat(32)}`, cleanup: true, onFailure: 'revert' }, 400);
      expect(refused.error.message).to.match(/^onFailure goes with a deploy to the cluster/);
    });
  });

  /**
   * The verdict answers in time (issue 41): a rollout healthy and stable for
   * SVC_VERIFY_STABLE_MS ends the window early; past SVC_VERIFY_ANSWER_MS the
   * answer carries the verdict so far and a follow-up run watches the rest,
   * reverting a change that turns out degraded and recording it on the session. Real time.
   */
  describe('answering in time: the stable early end and the answer cap', () => {
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

      // and on the ledger: a verdict entry on the change, after its revert, named by the run, the session and the change
      const verdicts = (await request(app).get('/api/v1/changes').query({ type: 'verdict' }).set(auth).expect(200)).body.data.changes;
      expect(verdicts).to.have.length(1);
      const [verdict] = verdicts;
      expect(verdict).to.deep.include({
        type: 'verdict',
        verdictOf: ledgerId,
        tool: 'operate',
        sessionId,
        outcome: { status: 'judged' },
        change: { method: 'none' },
      });
      expect(verdict.verdict).to.deep.include({
        health: 'degraded',
        execution: 'degraded',
        onFailure: 'revert',
        revertId: run.result.reverted[0].revertId,
        runId: health.followUp.runId,
        decidedAt: run.result.decidedAt,
      });
      expect(run.result.verdictIds).to.deep.equal([verdict.id]);
      expect(look.execution.outcome.health.verdictIds).to.deep.equal([verdict.id]);
      expect((await request(app).get(`/api/v1/changes/${ledgerId}`).set(auth).expect(200)).body.data.laterVerdict).to.deep.include({
        id: verdict.id,
        health: 'degraded',
      });
      const refused = await request(app).post(`/api/v1/changes/${verdict.id}/revert`).set(auth).send({}).expect(409);
      expect(refused.body.error).to.deep.include({ code: 'CONFLICT' });
      expect(refused.body.error.message).to.match(new RegExp(`^Entry ${verdict.id} is svc's verdict on change ${ledgerId}, not a change`));
      expect((await request(app).get('/api/v1/changes/integrity').set(auth).expect(200)).body.data.ok).to.equal(true);
    });

    it('a later healthy verdict is recorded on the ledger and the session: the window outlived the answer, the rollout then held', async () => {
      const { app } = buildTestApp({ ...env, SVC_VERIFY_WINDOW_MS: '5000', SVC_VERIFY_STABLE_MS: '1200', SVC_VERIFY_ANSWER_MS: '300' });
      const sessionId = await startOperate(app);
      const done = (await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId, executeChoice: 1 }).expect(200)).body.data.result;
      const health = done.execution.outcome.health;
      const ledgerId = done.execution.outcome.actions[0].ledgerId;
      expect(health).to.deep.include({ pending: true });
      const run = await pollRun(app, auth, health.followUp.runId);
      expect(run.result).to.deep.include({ verdict: 'healthy', stable: true });
      const verdicts = (await request(app).get('/api/v1/changes').query({ type: 'verdict', sessionId }).set(auth).expect(200)).body.data.changes;
      expect(verdicts.map((v: Json) => [v.verdictOf, v.verdict.health, v.verdict.revertId])).to.deep.equal([[ledgerId, 'healthy', undefined]]);
      let look: Json = {};
      for (let i = 0; i < 50; i++) {
        look = (await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId }).expect(200)).body.data.result;
        if (look.execution.outcome.health.pending !== true) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(look.execution.outcome.health).to.deep.include({ verdict: 'healthy', verdictIds: [verdicts[0].id] });
      expect(look.status).to.equal('executed');
    });
  });
});
