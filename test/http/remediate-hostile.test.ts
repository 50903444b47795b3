import { expect } from 'chai';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import type { Script } from '../support/scripted-model.js';
import { suiteProviders, startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { analysisAnswer, callFn, webDeployment } from '../support/remediation-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

type Any = any;
const PODS = { apiVersion: 'v1', kind: 'Pod', namespace: 'x' };

for (const provider of suiteProviders('anthropic'))
  describe(`remediate with a hostile or failing model (real app, chat server, Kubernetes stand-in) [${provider}]`, () => {
    let kube: KubeApiServer;
    let chat: ModelStandIn;
    let app: Any;

    const start = (env: Record<string, string> = {}) => {
      app = buildTestApp({
        ...chat.env(),
        SVC_LLM_MAX_RETRIES: '0',
        KUBECONFIG: kube.writeKubeconfig(),
        ...env,
      }).app;
    };
    const remediate = (body: object) => request(app).post('/api/v1/tools/remediate').set(auth).send(body);

    beforeEach(async () => {
      kube = await KubeApiServer.start();
      chat = await startModelStandIn(provider);
      kube.create(webDeployment('nginx:9.9-missing'));
      start();
    });
    afterEach(async () => {
      // whatever the model did: the API server saw reads and dry runs only, and svc still answers
      expect(kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All')).to.deep.equal([]);
      await request(app).get('/healthz').expect(200);
      const version = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
      expect(version.body.data.result.system.kubernetes.connected).to.equal(true);
      await kube.close();
      await chat.close();
    });

    it('an answer that is not JSON, twice: 500 EXECUTION_ERROR with a short excerpt', async () => {
      chat.script({ content: 'done' }, { content: 'Sure! The problem is DNS. '.repeat(50) }, { content: 'As I said, DNS.' });
      const res = await remediate({ issue: 'web is down' }).expect(500);
      expect(res.body.error.code).to.equal('EXECUTION_ERROR');
      expect(res.body.error.message)
        .to.contain('unusable after one retry: the answer contains no JSON object')
        .and.contain('Start of the answer: "As I said, DNS."');
      expect(chat.requests[2].messages.at(-1).content).to.contain('could not be used');
    });

    it('JSON that breaks the schema (an exec action, confidence 7), twice: 500 saying what was wrong', async () => {
      const bad = analysisAnswer({ confidence: 7, actions: [{ type: 'exec', command: 'kubectl delete ns x', description: 'x', risk: 'low', rationale: 'y' }] });
      chat.script({ content: 'done' }, { content: bad }, { content: bad });
      const res = await remediate({ issue: 'web is down' }).expect(500);
      expect(res.body.error.message).to.contain('does not fit the required schema').and.contain('confidence');
      expect(res.body.error.message.length).to.be.below(1200);
    });

    it('calls to unknown or writing functions and malformed arguments are answered with errors, never run', async () => {
      chat.script(
        {
          toolCalls: [
            { name: 'apply_manifest', arguments: JSON.stringify({ manifest: webDeployment('nginx:1.27') }) },
            { name: 'delete_pod', arguments: '{"namespace":"x","name":"web"}' },
            { name: 'list_resources', arguments: '{"apiVersion": "v1", "kind": ' },
            { name: 'get_pod_logs', arguments: '["not", "an", "object"]' },
            { name: 'get_resource', arguments: '{"apiVersion":"apps/v1","kind":"Deployment","name":"web","namespace":"x","dryRun":false}' },
          ],
        },
        { content: 'I could not change anything.' },
        { content: analysisAnswer({ actions: [] }) },
      );
      const res = await remediate({ issue: 'web is down' }).expect(200);
      const calls = res.body.data.result.investigation.functionsCalled;
      expect(calls.map((c: Any) => [c.name, c.ok])).to.deep.equal([
        ['apply_manifest', false],
        ['delete_pod', false],
        ['list_resources', false],
        ['get_pod_logs', false],
        ['get_resource', false],
      ]);
      expect(calls[0].error).to.contain('unknown function "apply_manifest"');
      // a block API carries arguments as an object: the malformed text arrives inside one, and is still refused
      expect(calls[2].error).to.contain(provider === 'openai' ? 'invalid arguments JSON' : 'invalid arguments');
      expect(calls[4].error).to.contain('invalid arguments');
      const told = chat.requests[1].messages.filter((m: Any) => m.role === 'tool').map((m: Any) => m.content);
      expect(told).to.have.length(5);
    });

    it('endless function calls stop at the 25-call cap with an analysis from the calls kept back', async () => {
      const endless: Script = (body) => (body.tools ? callFn('list_resources', PODS) : { content: analysisAnswer() });
      chat.script(...Array.from({ length: 30 }, () => endless));
      const res = await remediate({ issue: 'web is down' }).expect(200);
      const view = res.body.data.result;
      expect(view.investigation).to.deep.include({ stoppedBy: 'model-calls', modelCalls: 24, limit: 'the limit of 25 model calls was reached' });
      expect(chat.requests).to.have.length(24);
      expect(view.status).to.equal('awaiting_approval');
    });

    it('a 5 MB answer is cut in the loop and refused as an analysis, with a short message', async () => {
      const huge = 'x'.repeat(5 * 1024 * 1024);
      chat.script({ content: huge }, { content: huge }, { content: `{"rootCause": "${huge}"}` });
      const res = await remediate({ issue: 'web is down' }).expect(500);
      expect(res.body.error.message).to.contain('more than the 100000 allowed');
      expect(res.text.length).to.be.below(2000);
      expect(JSON.stringify(chat.requests[1].messages).length).to.be.below(20000);
    });

    it('the provider failing (500) mid-loop: a partial result saying so, with what was found', async () => {
      chat.script(
        { ...callFn('list_resources', PODS), content: 'Looking at the pods first.' },
        { status: 500, error: { message: 'The server had an error while processing your request.' } },
      );
      const res = await remediate({ issue: 'web is down' }).expect(200);
      const view = res.body.data.result;
      expect(view.status).to.equal('investigation_incomplete');
      expect(view.investigation.stoppedBy).to.equal('provider-error');
      expect(view.investigation.limit).to.contain('the AI provider failed');
      expect(view.investigation.functionsCalled.map((c: Any) => c.name)).to.deep.equal(['list_resources']);
      expect(view.message).to.contain('ended before a usable analysis');
    });

    it('the provider hanging mid-loop: the run ends at SVC_AI_TIMEOUT_MS with a partial result', async () => {
      start({ SVC_AI_TIMEOUT_MS: '1500' });
      chat.script(callFn('list_resources', PODS), { hang: true });
      const began = Date.now();
      const res = await remediate({ issue: 'web is down' }).expect(200);
      expect(Date.now() - began).to.be.within(1400, 8000);
      const view = res.body.data.result;
      expect(view.status).to.equal('investigation_incomplete');
      expect(view.investigation).to.deep.include({ stoppedBy: 'deadline', limit: 'the time limit of 1500 ms (SVC_AI_TIMEOUT_MS) was reached' });
    });
  });
