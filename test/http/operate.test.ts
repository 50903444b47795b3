import { expect } from 'chai';
import { mkdtempSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import type { ChatReply } from '../support/scripted-model.js';
import { suiteProviders, startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { deployment, planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { auth, buildTestApp } from '../support/test-app.js';

const WEB = '/apis/apps/v1/namespaces/x/deployments/web';
const getWeb: ChatReply = {
  toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
};
const plan = (...actions: Record<string, unknown>[]): ChatReply => ({ content: planJson(actions) });

for (const provider of suiteProviders('bedrock'))
  describe(`operate over HTTP: scripted chat server and the Kubernetes stand-in [${provider}]`, () => {
    let kube: KubeApiServer;
    let chat: ModelStandIn;
    let env: Record<string, string>;

    before(async () => {
      chat = await startModelStandIn(provider);
    });
    after(async () => {
      await chat.close();
    });
    // a fresh cluster per test: web in x, 2 replicas of nginx:1.27, rolled out by the stand-in's controllers
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

    const operate = (app: Express, body: object) => request(app).post('/api/v1/tools/operate').set(auth).send(body);
    /** Requests that persisted something: anything but GET and dry-run PATCH. */
    const writes = () => kube.requests.filter((r) => !(r.method === 'GET' || (r.method === 'PATCH' && r.query.get('dryRun') === 'All')));

    it('scales up: dry run shown with the diff, applied on executeChoice 1, rolled out, with the spans of the run', async () => {
      const tracer = new RecordingTracer();
      const { app } = buildTestApp(env, { tracer });
      chat.script(getWeb, { content: 'web in x runs 2 replicas of nginx:1.27; scale it to 5.' }, plan(scaleWeb(5)));

      const start = await operate(app, { intent: 'scale web in namespace x to 5 replicas' }).expect(200);
      const proposal = start.body.data.result;
      expect(proposal.status).to.equal('awaiting_approval');
      expect(proposal.sessionId).to.match(/^opr_[0-9a-f]{32}$/);
      expect(proposal.proposal.actions[0]).to.deep.include({
        type: 'scale',
        kubectl: 'kubectl scale deployment.v1.apps/web -n x --replicas=5',
        risk: 'low',
        effect: 'update',
        dryRun: { accepted: true },
        diff: [{ path: 'spec.replicas', from: 2, to: 5 }],
      });
      const dryRuns = kube.requests.filter((r) => r.method === 'PATCH');
      expect(dryRuns).to.have.length(1);
      expect(dryRuns[0]).to.deep.include({ path: WEB, contentType: 'application/merge-patch+json' });
      expect(dryRuns[0].query.get('dryRun')).to.equal('All');
      expect(writes()).to.deep.equal([]);
      expect(kube.objects.get(WEB)!.spec.replicas).to.equal(2);
      expect(chat.requests).to.have.length(3);
      expect(chat.requests[2].response_format).to.have.nested.property('json_schema.name', 'operation_plan');

      const run = await operate(app, { sessionId: proposal.sessionId, executeChoice: 1 }).expect(200);
      const result = run.body.data.result;
      expect(result.status).to.equal('executed');
      expect(result.execution.outcome.actions[0]).to.include({ status: 'applied' });
      expect(result.execution.outcome.rollouts[0]).to.deep.include({ state: 'rolled-out', message: 'successfully rolled out (5 of 5 replicas available)' });
      expect(result.execution.outcome.objects[0].state).to.equal('Deployment x/web: ready 5/5, updated 5, available 5');
      expect(kube.all('Pod').filter((p) => p.metadata.namespace === 'x')).to.have.length(5);
      // pinned to the version the proposal was previewed against: a change made since would be a 409, not overwritten
      const previewed = proposal.proposal.actions[0].resourceVersion;
      expect(previewed).to.be.a('string');
      expect(writes().map((r) => [r.method, r.path, r.body])).to.deep.equal([
        ['PATCH', WEB, `{"spec":{"replicas":5},"metadata":{"resourceVersion":"${previewed}"}}`],
      ]);
      expect(kube.objects.get(WEB)!.spec.replicas).to.equal(5);

      // execute_tool > tool_loop > chat, and cluster spans named after the API operation
      const root = tracer.spans.find((s) => s.name === 'execute_tool operate')!;
      const loop = tracer.spans.find((s) => s.name === `tool_loop ${chat.modelName}`)!;
      expect(loop.parent).to.equal(root);
      const chats = tracer.spans.filter((s) => s.name === `chat ${chat.modelName}`);
      expect(chats.filter((s) => s.parent === loop)).to.have.length(2);
      expect(chats.filter((s) => s.parent === root)).to.have.length(1); // the structured answer
      expect(chats[0].attributes).to.include({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5 });
      const dryRunSpan = tracer.spans.find((s) => s.name === 'dryRunPatch')!;
      expect(dryRunSpan.parent).to.equal(root);
      expect(dryRunSpan.attributes).to.include({ 'k8s.operation': 'patch' });
      expect(tracer.spans.find((s) => s.name === 'get' && s.parent?.name === 'execute_tool operate')).to.not.equal(undefined);
      expect(tracer.spans.filter((s) => s.name === 'patch')).to.have.length(1);
    });

    it('a rollout that fails (an image that does not exist) says how to roll back', async () => {
      kube.tickSeconds = 300; // the 600 s progress deadline passes within a few reads
      const { app } = buildTestApp(env);
      const containers = [{ name: 'web', image: 'nginx:does-not-exist', ports: [{ containerPort: 80 }] }];
      chat.script(
        { content: 'ok' },
        plan({
          type: 'patch',
          target: scaleWeb().target,
          patch: { spec: { template: { spec: { containers } } } },
          description: 'Use nginx:does-not-exist',
          risk: 'medium',
          rationale: 'asked',
        }),
      );
      const start = (await operate(app, { intent: 'run web in x on nginx:does-not-exist' }).expect(200)).body.data.result;
      expect(start.proposal.actions[0].diff).to.deep.equal([
        { path: 'spec.template.spec.containers[name=web].image', from: 'nginx:1.27', to: 'nginx:does-not-exist' },
      ]);
      const result = (await operate(app, { sessionId: start.sessionId, executeChoice: 1 }).expect(200)).body.data.result;
      expect(result.status).to.equal('execution_failed');
      const rollout = result.execution.outcome.rollouts[0];
      expect(rollout.state).to.equal('failed');
      expect(rollout.message).to.match(/^rollout failed: ReplicaSet "web-[a-z0-9]+" has timed out progressing\.$/);
      expect(rollout.rollback.patch).to.deep.equal({
        spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } } },
      });
      expect(rollout.rollback.kubectlUndo).to.equal('kubectl rollout undo deployment/web -n x');
      expect(result.nextStep).to.contain('kubectl rollout undo deployment/web -n x');
    });

    it('a plan whose dry run the API server refuses is shown and never applied', async () => {
      const { app } = buildTestApp(env);
      const manifest = { ...deployment({ replicas: -1 }), metadata: { name: 'web', namespace: 'x' }, status: undefined };
      chat.script({ content: 'ok' }, plan({ type: 'apply', manifest, description: 'Set web to -1 replicas', risk: 'low', rationale: 'asked' }));
      const start = (await operate(app, { intent: 'set web replicas to -1' }).expect(200)).body.data.result;
      expect(start.status).to.equal('needs_refinement');
      expect(start.proposal.actions[0].dryRun).to.deep.include({ accepted: false, reason: 'Invalid' });
      expect(start.proposal.actions[0].dryRun.message).to.contain('spec.replicas: Invalid value: -1: must be greater than or equal to 0');
      const refused = await operate(app, { sessionId: start.sessionId, executeChoice: 1 }).expect(400);
      expect(refused.body.error.code).to.equal('VALIDATION_ERROR');
      expect(refused.body.error.message).to.contain('cannot be executed');
      expect(writes()).to.deep.equal([]);
      expect(kube.objects.get(WEB)!.spec.replicas).to.equal(2);
    });

    it('refinedIntent plans again within the session', async () => {
      const { app } = buildTestApp(env);
      chat.script({ content: 'ok' }, plan(scaleWeb(10)), { content: 'ok' }, plan(scaleWeb(4)));
      const first = (await operate(app, { intent: 'scale web in x up' }).expect(200)).body.data.result;
      expect(first.proposal.actions[0].diff).to.deep.equal([{ path: 'spec.replicas', from: 2, to: 10 }]);
      const second = (await operate(app, { sessionId: first.sessionId, refinedIntent: 'no more than 4 replicas' }).expect(200)).body.data.result;
      expect(second).to.deep.include({ sessionId: first.sessionId, status: 'awaiting_approval', refinements: ['no more than 4 replicas'] });
      expect(second.proposal.actions[0].diff).to.deep.equal([{ path: 'spec.replicas', from: 2, to: 4 }]);
      expect(chat.requests[2].messages[1].content).to.contain('no more than 4 replicas').and.contain('previous_plan');
      expect(writes()).to.deep.equal([]);
    });

    it('an unknown session is a 400 that says how to start one', async () => {
      const { app } = buildTestApp(env);
      const res = await operate(app, { sessionId: `opr_${'a'.repeat(32)}`, executeChoice: 1 }).expect(400);
      expect(res.body.error).to.deep.include({
        code: 'VALIDATION_ERROR',
        message: `Unknown or expired session: opr_${'a'.repeat(32)}. Start a new operation with operate and an intent.`,
      });
      expect((await operate(app, {}).expect(400)).body.error.message).to.contain('intent is required');
    });

    it('a second executeChoice answers 400 with the earlier outcome; two at once apply once', async () => {
      const { app } = buildTestApp(env);
      chat.script({ content: 'ok' }, plan(scaleWeb(3)));
      const { sessionId } = (await operate(app, { intent: 'scale web in x to 3' }).expect(200)).body.data.result;
      const [a, b] = await Promise.all([operate(app, { sessionId, executeChoice: 1 }), operate(app, { sessionId, executeChoice: 1 })]);
      expect([a.status, b.status].sort()).to.deep.equal([200, 400]);
      const again = await operate(app, { sessionId, executeChoice: 1 }).expect(400);
      expect(again.body.error.message).to.contain('already executed');
      expect(again.body.error.details.execution).to.deep.include({ status: 'done' });
      expect(again.body.error.details.execution.outcome.succeeded).to.equal(true);
      expect(writes()).to.have.length(1);
    });

    it('executeChoice 2 stops with nothing applied', async () => {
      const { app } = buildTestApp(env);
      chat.script({ content: 'ok' }, plan(scaleWeb(3)));
      const { sessionId } = (await operate(app, { intent: 'scale web in x to 3' }).expect(200)).body.data.result;
      const stopped = (await operate(app, { sessionId, executeChoice: 2 }).expect(200)).body.data.result;
      expect(stopped.status).to.equal('stopped');
      // stopping twice answers the same, as remediate does (one rule: domain/sessions/approval-session.ts)
      expect((await operate(app, { sessionId, executeChoice: 2 }).expect(200)).body.data.result).to.deep.equal(stopped);
      await operate(app, { sessionId, executeChoice: 1 }).expect(400);
      expect(writes()).to.deep.equal([]);
    });

    it('takes evidence of 20000 characters and refuses 20001 before anything runs', async () => {
      const { app } = buildTestApp(env);
      chat.script({ content: 'ok' }, plan(scaleWeb(3)));
      await operate(app, { intent: 'scale web in x to 3', evidence: 'e'.repeat(20000) }).expect(200);
      expect(chat.requests[0].messages[1].content).to.contain('e'.repeat(20000));
      const before = chat.requests.length;
      const res = await operate(app, { intent: 'scale web in x to 3', evidence: 'e'.repeat(20001) }).expect(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      expect(res.body.error.message).to.contain('evidence');
      expect(chat.requests).to.have.length(before);
    });

    it('with no AI provider or no cluster: 500 naming OPENAI_API_KEY or KUBECONFIG, and no session', async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-operate-'));
      const noAi = await operate(buildTestApp({ KUBECONFIG: env.KUBECONFIG, SVC_DATA_DIR: dataDir }).app, { intent: 'scale web' }).expect(500);
      expect(noAi.body.error.code).to.equal('EXECUTION_ERROR');
      expect(noAi.body.error.message).to.contain('OPENAI_API_KEY');
      const noCluster = await operate(buildTestApp({ ...chat.env(), SVC_DATA_DIR: dataDir }).app, { intent: 'scale web' }).expect(500);
      expect(noCluster.body.error.message).to.contain('KUBECONFIG');
      expect(chat.requests).to.have.length(0);
      const sessions = path.join(dataDir, 'sessions');
      expect(existsSync(sessions) ? readdirSync(sessions, { recursive: true }).filter((f) => String(f).endsWith('.json')) : []).to.deep.equal([]);
    });

    describe('a hostile model never causes a write', () => {
      it('not JSON, then JSON that breaks the schema: 500 with an excerpt; the API server saw only GETs', async () => {
        const { app } = buildTestApp(env);
        chat.script(
          getWeb,
          { content: 'ok' },
          { content: 'Sure, I will just run kubectl delete deployment web' },
          { content: '{"summary":"x","risk":"none","actions":[{"type":"exec","command":"rm -rf /"}]}' },
        );
        const res = await operate(app, { intent: 'scale web in x to 3' }).expect(500);
        expect(res.body.error.code).to.equal('EXECUTION_ERROR');
        expect(res.body.error.message).to.contain('operation plan was unusable after one retry');
        expect(kube.requests.every((r) => r.method === 'GET')).to.equal(true);
        const healthy = await request(app).get('/healthz').expect(200);
        expect(healthy.body).to.deep.equal({ status: 'ok' });
      });

      it('functions named apply and delete are refused as unknown; only GETs and dry-run PATCHes reach the API server', async () => {
        const { app } = buildTestApp(env);
        chat.script(
          {
            toolCalls: [
              { name: 'apply', arguments: JSON.stringify({ manifest: deployment({ replicas: 0 }) }) },
              { name: 'delete', arguments: '{"kind":"Deployment","name":"web"}' },
              { name: 'get_resource', arguments: '{bad json' },
            ],
          },
          { content: 'ok' },
          plan(scaleWeb(3)),
        );
        const res = await operate(app, { intent: 'scale web in x to 3' }).expect(200);
        expect(res.body.data.result.status).to.equal('awaiting_approval');
        const toolResults = chat.requests[1].messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content);
        expect(toolResults[0]).to.contain('unknown function \\"apply\\"');
        expect(toolResults[1]).to.contain('unknown function \\"delete\\"');
        // a block API carries arguments as an object: the malformed text arrives inside one, and is still refused
        expect(toolResults[2]).to.contain(provider === 'openai' ? 'invalid arguments JSON' : 'invalid arguments');
        expect(writes()).to.deep.equal([]);
      });

      it('endless function calls end at 30 model calls with a clean 500', async () => {
        const { app } = buildTestApp(env);
        chat.script(...Array.from({ length: 30 }, () => getWeb)); // a 31st call would get 'ok' and pass the count
        const res = await operate(app, { intent: 'scale web in x to 3' }).expect(500);
        expect(res.body.error.code).to.equal('EXECUTION_ERROR');
        expect(chat.requests).to.have.length(30);
        expect(kube.requests.every((r) => r.method === 'GET')).to.equal(true);
      });
    });
  });
