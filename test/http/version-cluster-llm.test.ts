import { expect } from 'chai';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { auth, buildTestApp } from '../support/test-app.js';

describe('version tool: kubernetes and AI provider status from the configured adapters', () => {
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;

  before(async () => {
    kube = await KubeApiServer.start();
    chat = await OpenAiChatServer.start();
  });
  after(async () => {
    await kube.close();
    await chat.close();
  });

  it('reports the cluster connected with its context, and the configured provider, without credentials', async () => {
    const { app } = buildTestApp({
      KUBECONFIG: kube.writeKubeconfig({ context: 'prod-east' }),
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
    });
    const res = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
    const { system } = res.body.data.result;
    expect(system.kubernetes).to.deep.equal({ connected: true, context: 'prod-east', serverVersion: 'v1.31.2' });
    const { checkedAt, ...ai } = system.aiProvider;
    expect(ai).to.deep.equal({
      configured: true,
      provider: 'openai-compatible',
      model: 'gpt-test',
      hint: 'SVC_LLM_PROVIDER=openai: OPENAI_API_KEY, OPENAI_BASE_URL (any OpenAI-compatible server), SVC_LLM_MODEL, SVC_LLM_HEADERS',
      structuredOutput: 'json_schema',
      healthy: true,
    });
    expect(Date.parse(checkedAt)).to.be.a('number').and.not.NaN;
    expect(res.text).not.to.contain(kube.token).and.not.to.contain(chat.apiKey);
    expect(kube.requests.at(-1)!.path).to.equal('/version');
  });

  it('reports a cluster that refuses the token as not connected, with the reason and no token', async () => {
    const wrong = 'a-wrong-token-0123456789abcdef';
    const { app } = buildTestApp({ KUBECONFIG: kube.writeKubeconfig({ token: wrong }) });
    const res = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
    const k = res.body.data.result.system.kubernetes;
    expect(k).to.include({ connected: false, context: 'test-context' });
    expect(k.error).to.contain('401 Unauthorized');
    expect(res.text).not.to.contain(wrong);
    expect(res.body.data.result.status).to.equal('degraded');
  });

  it('says what to set when neither is configured', async () => {
    const { app } = buildTestApp();
    const res = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
    const { system } = res.body.data.result;
    expect(system.kubernetes).to.deep.equal({ connected: false, context: '', error: 'no cluster configured: set KUBECONFIG or run svc inside a cluster' });
    expect(system.aiProvider).to.deep.equal({
      configured: false,
      provider: 'none',
      hint: 'set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server), or SVC_LLM_PROVIDER=anthropic (ANTHROPIC_API_KEY) or bedrock (AWS_REGION, SVC_LLM_MODEL)',
    });
  });
});
