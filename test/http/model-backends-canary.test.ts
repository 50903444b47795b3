import { expect } from 'chai';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { PROVIDERS, startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { analysisAnswer, callFn, verifiedAnswer, webDeployment } from '../support/remediation-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

const HEADER_VALUE = 'canary-gateway-value-7f3a9c1e5b';
const PODS = { apiVersion: 'v1', kind: 'Pod', namespace: 'x' };

for (const provider of PROVIDERS)
  describe(`the provider contract on the real app [${provider}]: version, a remediation from issue to verified fix, the canary check`, () => {
    let kube: KubeApiServer;
    let chat: ModelStandIn;
    beforeEach(async () => {
      kube = await KubeApiServer.start();
      chat = await startModelStandIn(provider);
    });
    afterEach(async () => {
      await kube.close();
      await chat.close();
    });
    const env = () => ({
      ...chat.env(),
      SVC_LLM_MAX_RETRIES: '0',
      SVC_LLM_HEADERS: JSON.stringify({ 'X-Canary': HEADER_VALUE }),
      KUBECONFIG: kube.writeKubeconfig(),
    });

    it('version reports the provider, the model, its settings and the header names only', async () => {
      const { app } = buildTestApp(env());
      const res = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
      const ai = res.body.data.result.system.aiProvider;
      expect(ai).to.deep.include({
        configured: true,
        provider: provider === 'openai' ? 'openai-compatible' : provider,
        model: chat.modelName,
        headers: ['X-Canary'],
      });
      expect(ai.hint).to.contain(`SVC_LLM_PROVIDER=${provider}`);
      for (const secret of [HEADER_VALUE, ...chat.secrets()]) expect(res.text).not.to.contain(secret);
    });

    // The HTTP suites (remediate, operate, deployment) each run against one provider; this is what all three must carry.
    it('carries a remediation end to end: function calls out and results back, a schema-checked analysis, the approved patch, the follow-up check', async () => {
      kube.create(webDeployment('nginx:9.9-missing'));
      kube.tick(3);
      chat.script(
        callFn('list_resources', { ...PODS, labelSelector: 'app=web' }),
        { content: 'The tag nginx:9.9-missing does not exist.' },
        { content: analysisAnswer() },
      );
      const { app } = buildTestApp(env());
      const post = (body: object) => request(app).post('/api/v1/tools/remediate').set(auth).send(body);
      const view = (await post({ issue: 'web in namespace x never becomes ready' }).expect(200)).body.data.result;
      expect(view.status).to.equal('awaiting_approval');
      expect(view.investigation.functionsCalled.map((f: { name: string; ok: boolean }) => [f.name, f.ok])).to.deep.equal([['list_resources', true]]);
      // the function's result went back to the model through this provider's wire format
      expect(JSON.stringify(chat.requests[1])).to.contain('ImagePullBackOff');
      expect(view.actions[0]).to.deep.include({ dryRun: { accepted: true }, effect: 'update' });

      chat.fallback = { content: verifiedAnswer(true) };
      const done = (await post({ sessionId: view.sessionId, executeChoice: 1, planDigest: view.planDigest }).expect(200)).body.data.result;
      expect(done.status).to.equal('executed');
      expect(done.verification.resolved).to.equal(true);
      kube.settle();
      const d = kube.objects.get(kube.pathOf('apps/v1', 'Deployment', 'web', 'x'))!;
      expect(d.spec.template.spec.containers[0].image).to.equal('nginx:1.27');
    });

    it('no key, header value or session token in answers, logs or spans, on success and on a provider failure that quotes them', async () => {
      kube.create(webDeployment('nginx:9.9-missing'));
      const tracer = new RecordingTracer();
      const { app, logger } = buildTestApp({ ...env(), LOG_LEVEL: 'debug' }, { tracer });
      chat.script(callFn('list_resources', PODS), { content: 'bad tag' }, { content: analysisAnswer() });
      const ok = await request(app).post('/api/v1/tools/remediate').set(auth).send({ issue: 'web is down' }).expect(200);
      const secrets = [HEADER_VALUE, ...chat.secrets()];
      // a failing provider whose message quotes every secret it was given
      chat.script({ status: 400, error: { message: `bad request from ${secrets.join(' ')}` } });
      const failed = await request(app).post('/api/v1/tools/remediate').set(auth).send({ issue: 'web is down again' });
      expect(failed.status).to.be.within(400, 599);
      const spans = JSON.stringify(tracer.spans.map((s) => ({ name: s.name, attributes: s.attributes, error: String(s.error ?? '') })));
      expect(secrets.length).to.be.at.least(2);
      for (const secret of secrets) {
        expect(ok.text).not.to.contain(secret);
        expect(failed.text).not.to.contain(secret);
        expect(JSON.stringify(logger.lines)).not.to.contain(secret);
        expect(spans).not.to.contain(secret);
      }
      expect(failed.text).to.contain('(400)');
    });
  });
