import { expect } from 'chai';
import request from 'supertest';
import { suiteProviders, startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { auth, buildTestApp } from '../support/test-app.js';

/** A port nothing listens on: connecting is refused at once. */
const CLOSED = 'http://127.0.0.1:9';
const UNREACHABLE = {
  openai: { OPENAI_BASE_URL: `${CLOSED}/v1` },
  anthropic: { ANTHROPIC_BASE_URL: CLOSED },
  bedrock: { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: CLOSED },
} as const;
/** A key the server refuses (Bedrock: a static pair it does not know, which the default chain prefers). */
const WRONG_KEY = {
  openai: { OPENAI_API_KEY: 'sk-wrong-0123456789abcdef' },
  anthropic: { ANTHROPIC_API_KEY: 'sk-ant-wrong-0123456789abcdef' },
  bedrock: { AWS_ACCESS_KEY_ID: 'AKIAWRONG0123456789', AWS_SECRET_ACCESS_KEY: 'wrong-secret-0123456789abcdef' },
} as const;

for (const provider of suiteProviders('bedrock'))
  describe(`version asks the model [${provider}]`, function () {
    this.timeout(30000);
    let chat: ModelStandIn;
    beforeEach(async () => (chat = await startModelStandIn(provider)));
    afterEach(() => chat.close());
    const version = async (env: Record<string, string>) => {
      const { app } = buildTestApp({ ...chat.env(), SVC_LLM_MAX_RETRIES: '0', ...env });
      const res = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
      for (const secret of [...chat.secrets(), ...Object.values(WRONG_KEY[provider])]) expect(res.text).not.to.contain(secret);
      return { app, result: res.body.data.result };
    };

    it('one small call: healthy when the model answers, and the answer is kept (30 s) rather than asked again', async () => {
      const { app, result } = await version({});
      expect(result.system.aiProvider).to.include({ configured: true, healthy: true, model: chat.modelName });
      expect(result.system.aiProvider).to.not.have.property('error');
      const asked = chat.requests.length;
      expect(asked).to.equal(1);
      expect(JSON.stringify(chat.requests[0])).to.contain('reply with the single word ok');
      await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
      expect(chat.requests.length).to.equal(asked);
    });

    it('a model the server does not have: unhealthy, degraded, with the reason', async () => {
      const { result } = await version({ SVC_LLM_MODEL: 'no-such-model' });
      expect(result.status).to.equal('degraded');
      expect(result.system.aiProvider).to.include({ configured: true, healthy: false, model: 'no-such-model' });
      expect(result.system.aiProvider.error).to.match(/404|not found|no-such-model/i);
    });

    it('a refused key: unhealthy with the reason, the key nowhere in the answer', async () => {
      const { result } = await version(WRONG_KEY[provider]);
      expect(result.status).to.equal('degraded');
      expect(result.system.aiProvider.healthy).to.equal(false);
      expect(result.system.aiProvider.error).to.match(/401|403|refused|denied|key|credential/i);
    });

    it('an unreachable server: unhealthy with the reason', async () => {
      const { result } = await version(UNREACHABLE[provider]);
      expect(result.system.aiProvider.healthy).to.equal(false);
      expect(result.system.aiProvider.error).to.match(/reach|connect|ECONNREFUSED|answer/i);
    });
  });

describe('version asks the embeddings server too', function () {
  this.timeout(30000);
  it('an unreachable embeddings server: embedding unhealthy with the reason, status degraded', async () => {
    const { app } = buildTestApp({ SVC_EMBEDDINGS_PROVIDER: 'openai', SVC_EMBEDDINGS_BASE_URL: `${CLOSED}/v1`, SVC_EMBEDDINGS_API_KEY: 'emb-key-0123456789' });
    const res = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
    const { embedding } = res.body.data.result.system;
    expect(embedding.healthy).to.equal(false);
    expect(embedding.error).to.match(/^embedding service: .*(reach|connect|ECONNREFUSED)/i);
    expect(res.text).to.not.contain('emb-key-0123456789');
    expect(res.body.data.result.status).to.equal('degraded');
  });
});
