import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { TOKENS } from '../../infrastructure/tokens.js';
import { startFleet, type FleetFixture } from '../support/fleet-fixture.js';
import { startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { planJson, scaleWeb } from '../support/operate-fixtures.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const PEOPLE = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789', root: 'root-token-0123456789' };
const as = (who: keyof typeof PEOPLE) => ({ Authorization: `Bearer ${PEOPLE[who]}` });
const WEB = '/apis/apps/v1/namespaces/x/deployments/web';

describe('a rollout across a fleet, planned on one replica and executed on another sharing Redis', function () {
  this.timeout(60000);
  let redis: RedisServer;
  let chat: ModelStandIn;
  let fleet: FleetFixture;
  let apps: TestApp[] = [];

  before(async function () {
    requireRedisServer(this);
    redis = await RedisServer.start();
    chat = await startModelStandIn('openai');
  });
  after(async () => {
    await chat?.close();
    await redis?.stop();
  });
  beforeEach(async () => {
    fleet = await startFleet(['staging', 'production'], 'clusters:\n  staging:\n    labels: {env: staging}\n  production:\n    labels: {env: production}\n');
    for (const kube of Object.values(fleet.clusters)) kube.tickSeconds = 300;
    const tokens = path.join(path.dirname(fleet.env.KUBECONFIG), 'tokens');
    writeFileSync(tokens, `alice operator ${sha(PEOPLE.alice)}\nbob operator ${sha(PEOPLE.bob)}\nroot admin ${sha(PEOPLE.root)}\n`);
    const env = {
      ...chat.env(),
      ...fleet.env,
      SVC_AUTH_TOKEN: undefined,
      SVC_AUTH_TOKENS_FILE: tokens,
      REDIS_URL: redis.url,
      SVC_REDIS_PREFIX: `svc-fleet-${Date.now()}:`,
    };
    apps = [buildTestApp(env), buildTestApp(env)];
    await new Promise((r) => setTimeout(r, 300)); // the Redis clients connect
    chat.requests.length = 0;
  });
  afterEach(async () => {
    for (const t of apps) for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    await fleet.close();
  });

  const operate = (app: Express, who: keyof typeof PEOPLE, body: object) => request(app).post('/api/v1/tools/operate').set(as(who)).send(body);

  it('the other replica lists, shows and executes it; only its starter or an admin may act on it, with the sessions’ refusal', async () => {
    chat.script({ content: 'ok' }, { content: planJson([scaleWeb(3)]) }, { content: 'ok' }, { content: planJson([scaleWeb(3)]) });
    const planned = (await operate(apps[0].app, 'alice', { intent: 'scale web in x to 3 replicas', clusterSelector: {} }).expect(200)).body.data.result;
    expect(planned.sessionId).to.match(/^rol_[0-9a-f]{32}$/);

    // replica B knows the rollout: as a session of operate, and through the tool
    const shown = (await request(apps[1].app).get(`/api/v1/sessions/${planned.sessionId}`).set(as('alice')).expect(200)).body.data;
    expect(shown).to.deep.include({ sessionId: planned.sessionId, kind: 'rollout', tool: 'operate', status: 'awaiting_approval' });
    expect(shown.view.rollout.waves.map((w: { clusters: { cluster: string }[] }) => w.clusters.map((c) => c.cluster))).to.deep.equal([
      ['staging'],
      ['production'],
    ]);
    const listed = (await request(apps[1].app).get('/api/v1/sessions?tool=operate').set(as('alice')).expect(200)).body.data.sessions;
    expect(listed.map((s: { sessionId: string }) => s.sessionId)).to.include(planned.sessionId);

    // someone else is refused as a session's non-owner is, on either replica, before any write
    for (const [app, body, what] of [
      [apps[1].app, { sessionId: planned.sessionId, executeChoice: 1, planDigest: planned.planDigest }, 'continue'],
      [apps[0].app, { sessionId: planned.sessionId, executeChoice: 2 }, 'continue'],
      [apps[1].app, { sessionId: planned.sessionId }, 'read'],
    ] as const) {
      const refused = await operate(app, 'bob', body).expect(403);
      expect(refused.body.error.message).to.equal(`Session ${planned.sessionId} was started by alice (tokens-file); only they or an admin may ${what} it`);
    }
    expect(fleet.writes('staging')).to.deep.equal([]);
    expect(fleet.writes('production')).to.deep.equal([]);
    expect((await operate(apps[1].app, 'root', { sessionId: planned.sessionId }).expect(200)).body.data.result.status).to.equal('awaiting_approval');

    const ran = (await operate(apps[1].app, 'alice', { sessionId: planned.sessionId, executeChoice: 1, planDigest: planned.planDigest }).expect(200)).body.data
      .result;
    expect(ran.status, JSON.stringify(ran.rollout)).to.equal('executed');
    expect(ran.execution.approval.by.username).to.equal('alice');
    for (const name of ['staging', 'production']) expect(fleet.clusters[name].objects.get(WEB)!.spec.replicas, name).to.equal(3);
    // replica A reads the outcome B stored; a second execution, on either replica, is refused
    expect((await operate(apps[0].app, 'alice', { sessionId: planned.sessionId }).expect(200)).body.data.result.status).to.equal('executed');
    const again = await operate(apps[0].app, 'alice', { sessionId: planned.sessionId, executeChoice: 1, planDigest: planned.planDigest }).expect(400);
    expect(again.body.error.message).to.contain('was already executed');
  });
});
