import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { TOKENS } from '../../infrastructure/tokens.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer, type ChatReply } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const PEOPLE = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789', root: 'root-token-0123456789', vera: 'vera-token-0123456789' };
const as = (who: keyof typeof PEOPLE) => ({ Authorization: `Bearer ${PEOPLE[who]}` });
const getWeb: ChatReply = {
  toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
};

describe('sessions belong to their caller, across two replicas sharing Redis', function () {
  this.timeout(60000);
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-owners-'));
  const tokens = path.join(dir, 'tokens');
  let redis: RedisServer;
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let apps: TestApp[] = [];

  before(async function () {
    requireRedisServer(this);
    redis = await RedisServer.start();
    writeFileSync(
      tokens,
      `alice operator ${sha(PEOPLE.alice)}\nbob operator ${sha(PEOPLE.bob)}\nroot admin ${sha(PEOPLE.root)}\nvera viewer ${sha(PEOPLE.vera)}\n`,
    );
  });
  after(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(extra: Record<string, string> = {}) {
    kube = await KubeApiServer.start();
    kube.create(webManifest(2));
    kube.settle();
    chat = await OpenAiChatServer.start();
    const env = {
      SVC_AUTH_TOKEN: undefined,
      SVC_AUTH_TOKENS_FILE: tokens,
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
      REDIS_URL: redis.url,
      SVC_REDIS_PREFIX: `svc-own-${Date.now()}:`,
      ...extra,
    };
    apps = [buildTestApp(env), buildTestApp(env)];
    await new Promise((r) => setTimeout(r, 300)); // the Redis clients connect
  }
  afterEach(async () => {
    for (const t of apps) for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    await kube?.close();
    await chat?.close();
  });
  const operate = (app: Express, who: keyof typeof PEOPLE, body: object) => request(app).post('/api/v1/tools/operate').set(as(who)).send(body);
  const patches = () => kube.requests.filter((r) => r.method === 'PATCH' && r.query.get('dryRun') !== 'All');

  it('another operator may not look, execute, stop or refine (403 naming the owner), as GET /api/v1/sessions/{id}; the owner and an admin may', async () => {
    await start();
    chat.script(getWeb, { content: 'web runs 2 replicas' }, { content: planJson([scaleWeb(4)]) });
    const { sessionId } = (await operate(apps[0].app, 'alice', { intent: 'scale web in namespace x to 4 replicas' }).expect(200)).body.data.result;
    for (const body of [
      { sessionId, executeChoice: 1 },
      { sessionId, executeChoice: 2 },
      { sessionId, refinedIntent: 'scale to 5' },
    ]) {
      const refused = await operate(apps[1].app, 'bob', body).expect(403);
      expect(refused.body.error.code).to.equal('FORBIDDEN');
      expect(refused.body.error.message).to.equal(`Session ${sessionId} was started by alice (tokens-file); only they or an admin may continue it`);
    }
    expect(patches()).to.have.length(0);
    // reading through the tool is exactly reading through GET /api/v1/sessions/{id}
    for (const who of ['bob', 'vera'] as const) {
      const look = await operate(apps[1].app, who, { sessionId }).expect(403);
      expect(look.body.error.message).to.equal(`Session ${sessionId} was started by alice (tokens-file); only they or an admin may read it`);
      await request(apps[0].app).get(`/api/v1/sessions/${sessionId}`).set(as(who)).expect(403);
    }
    expect((await operate(apps[0].app, 'root', { sessionId }).expect(200)).body.data.result.status).to.equal('awaiting_approval');
    expect((await operate(apps[1].app, 'alice', { sessionId, executeChoice: 1 }).expect(200)).body.data.result.status).to.equal('executed');

    chat.script(getWeb, { content: 'web runs 4 replicas' }, { content: planJson([scaleWeb(3)]) });
    const second = (await operate(apps[0].app, 'alice', { intent: 'scale web in namespace x to 3 replicas' }).expect(200)).body.data.result;
    expect((await operate(apps[1].app, 'root', { sessionId: second.sessionId, executeChoice: 1 }).expect(200)).body.data.result.status).to.equal('executed');
  });

  it('SVC_REQUIRE_SECOND_APPROVER: a high-risk change needs another operator; its starter, even on another replica, gets 403 saying so', async () => {
    await start({ SVC_REQUIRE_SECOND_APPROVER: 'true' });
    chat.script(getWeb, { content: 'web runs 2 replicas' }, { content: planJson([{ ...scaleWeb(4), risk: 'high' }]) });
    const { sessionId, planDigest } = (await operate(apps[0].app, 'alice', { intent: 'scale web in namespace x to 4 replicas' }).expect(200)).body.data.result;
    const refused = await operate(apps[1].app, 'alice', { sessionId, executeChoice: 1 }).expect(403);
    expect(refused.body.error.message).to.equal(
      `Session ${sessionId} needs a second approver: it includes a high-risk action, and it was started by alice (tokens-file); another operator must send executeChoice 1`,
    );
    expect(patches()).to.have.length(0);
    // stopping stays the starter's
    await operate(apps[0].app, 'bob', { sessionId, executeChoice: 2 }).expect(403);
    // a second approver reads the plan (an operator may, under the rule; a viewer may not) and approves its digest
    expect((await operate(apps[1].app, 'bob', { sessionId }).expect(200)).body.data.result.planDigest).to.equal(planDigest);
    await operate(apps[1].app, 'vera', { sessionId }).expect(403);
    const blind = await operate(apps[0].app, 'bob', { sessionId, executeChoice: 1 }).expect(400);
    expect(blind.body.error.message).to.contain(`send the planDigest you reviewed (${planDigest} now)`);
    const done = (await operate(apps[0].app, 'bob', { sessionId, executeChoice: 1, planDigest }).expect(200)).body.data.result;
    expect(done.status).to.equal('executed');
    expect(done.execution.approval).to.deep.equal({ by: { id: 'tokens-file:svc:bob', username: 'bob', kind: 'tokens-file' }, planDigest });
    expect(patches()).to.have.length(1);
  });

  it("the rule reads svc's risk: a Deployment delete labelled low by the model still needs a second approver", async () => {
    await start({ SVC_REQUIRE_SECOND_APPROVER: 'true' });
    const del = {
      type: 'delete',
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' },
      description: 'Delete web',
      risk: 'low',
      rationale: 'r',
    };
    chat.script(getWeb, { content: 'delete it' }, { content: planJson([del], { risk: 'low' }) });
    const { sessionId, planDigest, proposal } = (await operate(apps[0].app, 'alice', { intent: 'delete web in x' }).expect(200)).body.data.result;
    expect(proposal.actions[0]).to.deep.include({ risk: 'high', riskReasons: ['deletes a Deployment'] });
    const refused = await operate(apps[1].app, 'alice', { sessionId, executeChoice: 1, planDigest }).expect(403);
    expect(refused.body.error.message).to.contain('needs a second approver: it includes a high-risk action');
    expect(kube.requests.filter((r) => r.method === 'DELETE' && r.query.get('dryRun') !== 'All')).to.deep.equal([]);
  });

  it('an approval binds to the plan read: after a refine the old planDigest is 409 CONFLICT and nothing is applied', async () => {
    await start({ SVC_REQUIRE_SECOND_APPROVER: 'true' });
    chat.script(getWeb, { content: 'web runs 2 replicas' }, { content: planJson([{ ...scaleWeb(4), risk: 'high' }]) });
    const first = (await operate(apps[0].app, 'alice', { intent: 'scale web in namespace x to 4 replicas' }).expect(200)).body.data.result;
    chat.script({ content: 'more' }, { content: planJson([{ ...scaleWeb(9), risk: 'high' }]) });
    const refined = (await operate(apps[0].app, 'alice', { sessionId: first.sessionId, refinedIntent: 'make it 9' }).expect(200)).body.data.result;
    expect(refined.planDigest)
      .to.match(/^sha256:[0-9a-f]{64}$/)
      .and.not.equal(first.planDigest);
    const stale = await operate(apps[1].app, 'bob', { sessionId: first.sessionId, executeChoice: 1, planDigest: first.planDigest }).expect(409);
    expect(stale.body.error).to.deep.include({ code: 'CONFLICT', details: { planDigest: refined.planDigest } });
    expect(stale.body.error.message).to.contain('plan changed since it was read');
    expect(patches()).to.have.length(0);
  });

  it('SVC_PROTECTED_NAMESPACES: with the rule on, a low-risk change into a protected namespace needs a second approver too', async () => {
    await start({ SVC_REQUIRE_SECOND_APPROVER: 'true', SVC_PROTECTED_NAMESPACES: 'prod, x' });
    chat.script(getWeb, { content: 'web runs 2 replicas' }, { content: planJson([scaleWeb(4)]) });
    const { sessionId } = (await operate(apps[0].app, 'alice', { intent: 'scale web in namespace x to 4 replicas' }).expect(200)).body.data.result;
    const refused = await operate(apps[1].app, 'alice', { sessionId, executeChoice: 1 }).expect(403);
    expect(refused.body.error.message).to.contain('it writes into the protected namespace x');
    const { planDigest } = (await operate(apps[1].app, 'alice', { sessionId }).expect(200)).body.data.result;
    expect((await operate(apps[1].app, 'root', { sessionId, executeChoice: 1, planDigest }).expect(200)).body.data.result.status).to.equal('executed');
  });
});
