import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SystemClock } from '../../infrastructure/clock/system-clock.js';
import { FileChangeLedger, LEDGER_FILE } from '../../infrastructure/ledger/file-change-ledger.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { callJson } from '../support/replica-processes.js';
import { runSvc } from '../support/svc-process.js';

const TOKEN = 'ledger-intent-token-0123456789ab';
const WEB = '/apis/apps/v1/namespaces/x/deployments/web';
type Json = Record<string, any>;

async function poll<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const v = await probe();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/**
 * The write-ahead ledger against real processes: svc is killed (SIGKILL)
 * after the Kubernetes stand-in committed its patch and before the answer
 * reached svc; the restarted svc shows the intent, then recovery records the
 * outcome it reads from the cluster. And a ledger that cannot take the
 * intent: the call is 500 and the cluster receives no write.
 */
describe('the write-ahead ledger across kill -9 (real svc processes, Kubernetes stand-in)', function () {
  this.timeout(90_000);
  let chat: OpenAiChatServer;
  let kube: KubeApiServer;
  const dirs: string[] = [];
  const procs: ReturnType<typeof runSvc>[] = [];

  before(async () => {
    [chat, kube] = await Promise.all([OpenAiChatServer.start(), KubeApiServer.start()]);
  });
  beforeEach(() => {
    kube.objects.delete(WEB);
    kube.create(webManifest(2));
    kube.settle();
  });
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all([chat?.close(), kube?.close()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function svc(dir: string, env: Record<string, string> = {}) {
    const p = runSvc({
      HOST: '127.0.0.1',
      PORT: '0',
      SVC_DATA_DIR: dir,
      SVC_AUTH_TOKEN: TOKEN,
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
      ...env,
    });
    procs.push(p);
    const url = await poll('svc listening', 20_000, () => /"url":"([^"]+)"/.exec(p.output())?.[1]);
    return { url, p };
  }
  const call = (url: string, method: string, pathname: string, body?: Json) => callJson(url, method, pathname, { authorization: `Bearer ${TOKEN}` }, body);
  async function plan(url: string): Promise<string> {
    chat.script(
      { toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }] },
      { content: 'web runs 2 replicas' },
      { content: planJson([scaleWeb(5)]) },
    );
    const planned = await call(url, 'POST', '/api/v1/tools/operate', { intent: 'scale web in x to 5' });
    expect(planned.status, JSON.stringify(planned.json)).to.equal(200);
    return planned.json.data.result.sessionId;
  }
  const persistedWrites = () => kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All');

  it('kill -9 between the API server’s commit and its answer: the restarted svc shows the intent, then recovery records the observed outcome', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-intent-kill-'));
    dirs.push(dir);
    const first = await svc(dir);
    const sessionId = await plan(first.url);
    kube.holdAnswer = (r) => r.method === 'PATCH' && r.path === WEB && r.query.get('dryRun') !== 'All';
    const execute = call(first.url, 'POST', '/api/v1/tools/operate', { sessionId, executeChoice: 1 }).catch((e: Error) => e);
    await poll('the stand-in to commit the patch and hold its answer', 20_000, () => (kube.held.length ? true : undefined));
    // the patch is live in the cluster; svc has not had the answer
    expect(kube.objects.get(WEB)!.spec.replicas).to.equal(5);
    first.p.child.kill('SIGKILL');
    await first.p.exited;
    kube.releaseHeld();
    expect(await execute).to.be.instanceOf(Error);

    // what the dead svc left on disk: the intent, durable, and no outcome
    const onDisk = new FileChangeLedger({ dir: path.join(dir, 'ledger'), clock: new SystemClock() });
    const [intent, ...more] = await onDisk.openIntents();
    await onDisk.close();
    expect(more).to.deep.equal([]);
    expect(intent).to.deep.include({
      type: 'intent',
      tool: 'operate',
      sessionId,
      target: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' },
      outcome: { status: 'pending' },
    });
    expect(intent.caller).to.deep.include({ id: 'static:svc:admin', username: 'admin' });
    expect((intent.change.body as Json).spec).to.deep.equal({ replicas: 5 });

    // restarted with a grace period it has not reached yet: the intent shows as an open change
    const second = await svc(dir, { SVC_LEDGER_INTENT_GRACE_SECONDS: '6' });
    const listed = (await call(second.url, 'GET', '/api/v1/changes')).json.data.changes;
    expect(listed.map((e: Json) => [e.id, e.type, e.outcome.status])).to.deep.equal([[intent.id, 'intent', 'pending']]);
    const open = (await call(second.url, 'GET', '/api/v1/changes/integrity')).json.data;
    expect(open).to.deep.include({ ok: true, entries: 1, openIntents: { count: 1, ids: [intent.id] } });

    // past it, recovery reads the object and records what it sees: the patch took effect
    const outcome = await poll('recovery to record the outcome', 30_000, async () => {
      const changes: Json[] = (await call(second.url, 'GET', '/api/v1/changes')).json.data.changes;
      return changes.find((e) => e.intentId === intent.id);
    });
    expect(outcome).to.deep.include({ type: 'change', tool: 'operate', sessionId, intentId: intent.id, outcome: { status: 'applied' } });
    expect(outcome.recovery.finding).to.equal('matches');
    expect(outcome.resourceVersionAfter).to.equal(kube.objects.get(WEB)!.metadata.resourceVersion);
    expect(outcome.inverse).to.deep.equal({ method: 'patch', patchType: 'merge', body: { spec: { replicas: 2 } } });
    const after = (await call(second.url, 'GET', '/api/v1/changes')).json.data.changes;
    expect(
      after.map((e: Json) => e.id),
      'the closed intent is no longer listed',
    ).to.deep.equal([outcome.id]);
    const closed = (await call(second.url, 'GET', '/api/v1/changes/integrity')).json.data;
    expect(closed).to.deep.include({ ok: true, entries: 2 });
    expect(closed).to.not.have.property('openIntents');
    expect(second.p.output()).to.include('recovered the outcome of a write svc sent without recording its answer');
    // the recovered change reverts like any other
    kube.settle();
    const reverted = await call(second.url, 'POST', `/api/v1/changes/${outcome.id}/revert`, {});
    expect(reverted.status, JSON.stringify(reverted.json)).to.equal(200);
    expect(kube.objects.get(WEB)!.spec.replicas).to.equal(2);
  });

  it('on Redis: replica A killed between commit and answer; B and C, started together, both find the intent and exactly one outcome is recorded', async function () {
    requireRedisServer(this);
    const redis = await RedisServer.start();
    try {
      const shared = { REDIS_URL: redis.url, SVC_REDIS_PREFIX: 'svc-intent-kill:', SVC_LEDGER_INTENT_GRACE_SECONDS: '3' };
      const fresh = () => {
        const d = mkdtempSync(path.join(tmpdir(), 'svc-intent-redis-'));
        dirs.push(d);
        return d;
      };
      const a = await svc(fresh(), shared);
      const sessionId = await plan(a.url);
      kube.holdAnswer = (r) => r.method === 'PATCH' && r.path === WEB && r.query.get('dryRun') !== 'All';
      const execute = call(a.url, 'POST', '/api/v1/tools/operate', { sessionId, executeChoice: 1 }).catch((e: Error) => e);
      await poll('the stand-in to commit the patch and hold its answer', 20_000, () => (kube.held.length ? true : undefined));
      a.p.child.kill('SIGKILL');
      await a.p.exited;
      kube.releaseHeld();
      expect(await execute).to.be.instanceOf(Error);
      expect(kube.objects.get(WEB)!.spec.replicas).to.equal(5);

      const [b, c] = await Promise.all([svc(fresh(), shared), svc(fresh(), shared)]);
      const outcome = await poll('recovery to record the outcome', 30_000, async () => {
        const changes: Json[] = (await call(c.url, 'GET', '/api/v1/changes')).json.data.changes;
        return changes.find((e) => e.intentId !== undefined);
      });
      expect(outcome).to.deep.include({ type: 'change', sessionId, outcome: { status: 'applied' } });
      // both replicas have run recovery past the grace period by now; give a second one time to try too
      await new Promise((r) => setTimeout(r, 2500));
      for (const url of [b.url, c.url]) {
        const listed: Json[] = (await call(url, 'GET', '/api/v1/changes')).json.data.changes;
        expect(listed.map((e) => e.id)).to.deep.equal([outcome.id]);
        const integrity = (await call(url, 'GET', '/api/v1/changes/integrity')).json.data;
        expect(integrity).to.deep.include({ ok: true, entries: 2 });
        expect(integrity).to.not.have.property('openIntents');
      }
      const recoveredBy = [b, c].filter((r) => r.p.output().includes('recovered the outcome of a write')).length;
      expect(recoveredBy).to.equal(1);
    } finally {
      await redis.stop();
    }
  });

  it('a ledger that cannot take the intent: 500 EXECUTION_ERROR naming it, and nothing reaches the cluster', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-intent-refused-'));
    dirs.push(dir);
    // the ledger file cannot be opened (a directory in its place): every append fails
    mkdirSync(path.join(dir, 'ledger', LEDGER_FILE), { recursive: true });
    const s = await svc(dir);
    const sessionId = await plan(s.url);
    const before = persistedWrites().length;
    const executed = await call(s.url, 'POST', '/api/v1/tools/operate', { sessionId, executeChoice: 1 });
    expect(executed.status, JSON.stringify(executed.json)).to.equal(500);
    expect(executed.json.error.code).to.equal('EXECUTION_ERROR');
    expect(executed.json.error.message).to.match(/could not record the intent of the patch of Deployment\/web in x, so it was not sent to the cluster/);
    expect(persistedWrites().length).to.equal(before);
    expect(kube.objects.get(WEB)!.spec.replicas).to.equal(2);
    s.p.child.kill('SIGKILL');
    await s.p.exited;
  });
});
