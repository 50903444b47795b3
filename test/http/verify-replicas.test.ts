import { expect } from 'chai';
import request from 'supertest';
import { waitForSharedState } from '../../infrastructure/composition-root.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { planJson, webManifest } from '../support/operate-fixtures.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { pollRun } from '../support/same-run.js';
import { auth, buildTestApp, type TestApp } from '../support/test-app.js';

type Json = Record<string, any>;
const WEB = '/apis/apps/v1/namespaces/x/deployments/web';

/**
 * Two replicas (two apps, one redis-server: sessions, runs and the ledger
 * shared): an operation planned on A is executed as a run on B; B verifies
 * and reverts, and A answers the run's verify events, the session's verdict
 * and the change's revertedBy.
 */
describe('verify or revert across replicas sharing Redis', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  let kube: KubeApiServer;
  let chat: ModelStandIn;
  const apps: TestApp[] = [];

  before(async function () {
    requireRedisServer(this);
    [redis, kube, chat] = await Promise.all([RedisServer.start(), KubeApiServer.start(), startModelStandIn('openai')]);
    kube.create(webManifest(2));
    kube.settle();
    kube.tickSeconds = 300;
  });
  after(async () => {
    for (const t of apps) for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    await Promise.all([redis?.stop(), kube?.close(), chat?.close()]);
  });

  it('a run executed on replica B verifies and reverts; replica A sees the verify events, the verdict and the link', async () => {
    const env = { ...chat.env(), KUBECONFIG: kube.writeKubeconfig(), REDIS_URL: redis.url, SVC_REDIS_PREFIX: 'svc-verify:' };
    const [a, b] = [buildTestApp(env), buildTestApp(env)];
    apps.push(a, b);
    await Promise.all([waitForSharedState(a.container), waitForSharedState(b.container)]);
    const containers = [{ name: 'web', image: 'nginx:does-not-exist', ports: [{ containerPort: 80 }] }];
    chat.script(
      { content: 'ok' },
      {
        content: planJson([
          {
            type: 'patch',
            target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' },
            patch: { spec: { template: { spec: { containers } } } },
            description: 'Use nginx:does-not-exist',
            risk: 'medium',
            rationale: 'asked',
          },
        ]),
      },
    );
    const start = (await request(a.app).post('/api/v1/tools/operate').set(auth).send({ intent: 'run web in x on nginx:does-not-exist' }).expect(200)).body.data
      .result;
    const accepted = await request(b.app)
      .post('/api/v1/tools/operate')
      .set(auth)
      .set('Prefer', 'respond-async')
      .send({ sessionId: start.sessionId, executeChoice: 1, onFailure: 'revert' })
      .expect(202);
    const runId = accepted.body.data.runId;
    const run = await pollRun(a.app, auth, runId);
    expect(run.status).to.equal('succeeded');
    const steps = run.progress.filter((e: Json) => e.type === 'verify').map((e: Json) => e.data);
    expect(steps.find((d: Json) => d.step === 'verdict')).to.deep.include({ verdict: 'degraded' });
    const reverted = steps.find((d: Json) => d.step === 'reverted');
    expect(reverted.ledgerId).to.match(/^chg_/);
    // the session as A reads it, from Redis
    const look = (await request(a.app).post('/api/v1/tools/operate').set(auth).send({ sessionId: start.sessionId }).expect(200)).body.data.result;
    expect(look.status).to.equal('execution_failed');
    expect(look.execution.outcome.health.reverted).to.deep.equal([
      { ledgerId: reverted.ledgerId, revertId: reverted.revertId, target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' } },
    ]);
    const original = (await request(a.app).get(`/api/v1/changes/${reverted.ledgerId}`).set(auth).expect(200)).body.data;
    expect(original.revertedBy).to.equal(reverted.revertId);
    expect(kube.objects.get(WEB)!.spec.template.spec.containers[0].image).to.equal('nginx:1.27');
  });
});
