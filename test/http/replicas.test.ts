import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { TOKENS } from '../../infrastructure/tokens.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer, type ChatReply } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { auth, buildTestApp, type TestApp } from '../support/test-app.js';
import { runWorkflow, WorkflowStandIns } from '../support/workflow-harness.js';

type Json = Record<string, any>;

const getWeb: ChatReply = {
  toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
};

/** Replicas: apps of their own (container, Redis client, caches, data folder) sharing one Redis. */
async function replicas(n: number, env: Record<string, string>, overrides = {}): Promise<TestApp[]> {
  const apps = Array.from({ length: n }, () => buildTestApp(env, overrides));
  await new Promise((r) => setTimeout(r, 300)); // the Redis clients connect
  return apps;
}

async function closeAll(apps: TestApp[]): Promise<void> {
  for (const t of apps) for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
}

describe('several replicas sharing one Redis', function () {
  this.timeout(60000);
  let redis: RedisServer;
  before(async function () {
    requireRedisServer(this);
    redis = await RedisServer.start();
  });
  after(async () => redis?.stop());

  describe('operate', () => {
    let kube: KubeApiServer;
    let chat: OpenAiChatServer;
    let apps: TestApp[];
    beforeEach(async () => {
      kube = await KubeApiServer.start();
      kube.create(webManifest(2));
      kube.settle();
      chat = await OpenAiChatServer.start();
      const env = {
        OPENAI_API_KEY: chat.apiKey,
        OPENAI_BASE_URL: chat.baseUrl,
        SVC_LLM_MODEL: 'gpt-test',
        KUBECONFIG: kube.writeKubeconfig(),
        REDIS_URL: redis.url,
        SVC_REDIS_PREFIX: `svc-rep-${Date.now()}:`,
      };
      apps = await replicas(3, env);
    });
    afterEach(async () => {
      await closeAll(apps);
      await kube.close();
      await chat.close();
    });
    const operate = (app: Express, body: object) => request(app).post('/api/v1/tools/operate').set(auth).send(body);
    const patches = () => kube.requests.filter((r) => r.method === 'PATCH' && r.query.get('dryRun') !== 'All');

    it('a change proposed on replica A is executed on replica B', async () => {
      chat.script(getWeb, { content: 'web runs 2 replicas' }, { content: planJson([scaleWeb(4)]) });
      const proposal = (await operate(apps[0].app, { intent: 'scale web in namespace x to 4 replicas' }).expect(200)).body.data.result;
      expect(proposal.status).to.equal('awaiting_approval');
      const executed = (await operate(apps[1].app, { sessionId: proposal.sessionId, executeChoice: 1 }).expect(200)).body.data.result;
      expect(executed.status, JSON.stringify(executed)).to.equal('executed');
      expect(patches()).to.have.length(1);
      expect(kube.objects.get('/apis/apps/v1/namespaces/x/deployments/web')!.spec.replicas).to.equal(4);
      // and replica C reads the same session
      const seen = (await operate(apps[2].app, { sessionId: proposal.sessionId }).expect(200)).body.data.result;
      expect(seen.status).to.equal('executed');
    });

    it('the same executeChoice sent to two replicas at once is applied once; the other answers 400 with the first outcome', async () => {
      chat.script(getWeb, { content: 'web runs 2 replicas' }, { content: planJson([scaleWeb(3)]) });
      const { sessionId } = (await operate(apps[0].app, { intent: 'scale web in namespace x to 3 replicas' }).expect(200)).body.data.result;
      const [b, c] = await Promise.all([operate(apps[1].app, { sessionId, executeChoice: 1 }), operate(apps[2].app, { sessionId, executeChoice: 1 })]);
      expect([b.status, c.status].sort()).to.deep.equal([200, 400]);
      const refused = b.status === 400 ? b : c;
      expect(refused.body.error.code).to.equal('VALIDATION_ERROR');
      expect(refused.body.error.message).to.match(/being executed by another request|was already executed/);
      expect(patches()).to.have.length(1);
    });
  });

  it('the deployment workflow with every step on a different replica, and a replica started afterwards sees the solution', async () => {
    const s = await WorkflowStandIns.start();
    const env = { ...s.env(), REDIS_URL: redis.url, SVC_REDIS_PREFIX: `svc-wf-${Date.now()}:` };
    const apps = await replicas(3, env, s.overrides());
    try {
      for (const t of apps) await s.seedOrgData(t.container);
      s.answer();
      let n = 0;
      const served: number[] = [];
      const call = async (tool: string, params: Record<string, unknown>): Promise<Json> => {
        const i = n++ % apps.length;
        served.push(i);
        const res = await request(apps[i].app).post(`/api/v1/tools/${tool}`).set(auth).send(params);
        expect(res.status, `${tool} on replica ${i}: ${JSON.stringify(res.body)}`).to.equal(200);
        return res.body.data.result;
      };
      const steps = await runWorkflow(call);
      expect(new Set(served).size).to.equal(3);
      const deployed = steps.at(-1)!.result;
      expect(deployed.status).to.equal('ready');
      const later = buildTestApp(env, s.overrides());
      await new Promise((r) => setTimeout(r, 300));
      const again = await request(later.app)
        .post('/api/v1/tools/deployManifests')
        .set(auth)
        .send({ solutionId: steps[0].result.solutions[0].solutionId, timeout: 30 });
      expect(again.status, JSON.stringify(again.body)).to.equal(200);
      expect(again.body.data.result.status).to.equal('ready');
      await closeAll([later]);
    } finally {
      await closeAll(apps);
      await s.close();
    }
  });
});
