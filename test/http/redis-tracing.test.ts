import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { TOKENS } from '../../infrastructure/tokens.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer, type ChatReply } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { RecordingTracer, type RecordedSpan } from '../support/recording-tracer.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { auth, buildTestApp, type TestApp } from '../support/test-app.js';

const getWeb: ChatReply = {
  toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
};
const PASSWORD = 'redis-span-canary-pass-4242';

function rootOf(span: RecordedSpan): RecordedSpan {
  let s = span;
  while (s.parent) s = s.parent;
  return s;
}

describe('Redis calls as spans under the tool span', function () {
  this.timeout(60000);
  let redis: RedisServer;
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let t: TestApp;
  let tracer: RecordingTracer;
  before(async function () {
    requireRedisServer(this);
    redis = await RedisServer.start({ password: PASSWORD });
    kube = await KubeApiServer.start();
    kube.create(webManifest(2));
    kube.settle();
    chat = await OpenAiChatServer.start();
    tracer = new RecordingTracer();
    const env = {
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
      REDIS_URL: `${redis.url}/2`,
      SVC_REDIS_PREFIX: 'svc-span:',
    };
    t = buildTestApp(env, { tracer });
    await new Promise((r) => setTimeout(r, 300));
  });
  after(async () => {
    if (t) for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    await kube?.close();
    await chat?.close();
    await redis?.stop();
  });
  const operate = (app: Express, body: object) => request(app).post('/api/v1/tools/operate').set(auth).send(body);

  it('an operate start and execute write the session in redis spans with db.* attributes, children of execute_tool, with no credential or id', async () => {
    chat.script(getWeb, { content: 'web runs 2 replicas' }, { content: planJson([scaleWeb(3)]) });
    const { sessionId } = (await operate(t.app, { intent: 'scale web in namespace x to 3 replicas' }).expect(200)).body.data.result;
    expect((await operate(t.app, { sessionId, executeChoice: 1 }).expect(200)).body.data.result.status).to.equal('executed');

    const spans = tracer.spans.filter((s) => s.attributes['db.system.name'] === 'redis');
    const summaries = spans.map((s) => s.name);
    // the create is a script too (the record and its listing entries in one step), so the first span is its EVAL
    expect(summaries[0]).to.equal('EVAL session');
    expect(summaries).to.include.members(['GET session', 'EVAL session']);
    const create = spans[0];
    expect(create.attributes).to.deep.equal({
      'db.system.name': 'redis',
      'db.operation.name': 'EVAL',
      'db.query.summary': 'EVAL session',
      'db.namespace': '2',
      'server.address': '127.0.0.1',
      'server.port': redis.port,
      'svc.redis.key_prefix': 'svc-span:',
    });
    for (const s of spans) {
      expect(rootOf(s).name).to.equal('execute_tool operate');
      expect(s.ended).to.equal(true);
      expect(s.error).to.equal(undefined);
    }
    // the execute's revision check is a span of its own under the second run
    const update = spans.find((s) => s.name === 'EVAL session')!;
    expect(update.attributes['db.operation.name']).to.equal('EVAL');
    expect(JSON.stringify(tracer.spans.map((s) => [s.name, s.attributes]))).not.to.contain(PASSWORD);
    // keys carry session ids: a redis span names the kind of key, never the key
    expect(JSON.stringify(spans.map((s) => [s.name, s.attributes]))).not.to.contain(sessionId.slice(4));
  });

  it('records no span outside a tool run (version probes, /readyz, rate limits)', async () => {
    const before = tracer.spans.filter((s) => s.attributes['db.system.name'] === 'redis').length;
    await request(t.app).get('/readyz').set(auth);
    const version = (await request(t.app).post('/api/v1/tools/version').set(auth).send({}).expect(200)).body.data.result;
    expect(version.system.sharedState.connected).to.equal(true);
    expect(tracer.spans.filter((s) => s.attributes['db.system.name'] === 'redis')).to.have.length(before);
  });

  it('a failed call is a span with the error, naming Redis without the password', async () => {
    await redis.halt();
    try {
      const res = await operate(t.app, { sessionId: 'opr_' + 'a'.repeat(32), executeChoice: 1 });
      expect(res.status).to.equal(502);
      const failed = tracer.spans.filter((s) => s.attributes['db.system.name'] === 'redis' && s.error);
      expect(failed.length).to.be.greaterThan(0);
      const message = (failed[0]!.error as Error).message;
      expect(message).to.match(/^Redis at redis:\/\/(\S+@)?127\.0\.0\.1:\d+\/2 failed to read a session/);
      expect(message).not.to.contain(PASSWORD);
    } finally {
      await redis.restart();
    }
  });
});
