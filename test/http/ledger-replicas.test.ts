import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { callJson } from '../support/replica-processes.js';
import { startReplica, waitFor, type runSvc } from '../support/svc-process.js';

const TOKEN = 'ledger-replica-token-0123456789';
const PREFIX = 'svc-ledger-replicas:';
const APPENDS = 40;
const WRITER = path.join(__dirname, '..', 'support', 'redis-ledger-writer.js');
const WEB = '/apis/apps/v1/namespaces/x/deployments/web';
type Json = Record<string, any>;

/** A replica's ledger in its own process: its own connection and RedisChangeLedger. */
function writer(url: string, tag: string) {
  const child: ChildProcess = spawn(process.execPath, [WRITER, url, PREFIX, String(APPENDS), tag], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, exited, out: () => out, err: () => err };
}

/**
 * Replicas sharing one ledger on a real redis-server: three processes, each
 * with its own connection and adapter, append at the same moment as a svc
 * replica (A) applies a change; the chain stays one and unbroken, with every
 * acknowledged entry once. The change made through A is reverted through
 * another svc replica (B) over HTTP, against the same Kubernetes stand-in.
 */
describe('the change ledger on Redis shared by replica processes', function () {
  this.timeout(90_000);
  let redis: RedisServer;
  let chat: OpenAiChatServer;
  let kube: KubeApiServer;
  const dirs: string[] = [];
  const procs: ReturnType<typeof runSvc>[] = [];
  const writers: ReturnType<typeof writer>[] = [];

  before(async function () {
    requireRedisServer(this);
    [redis, chat, kube] = await Promise.all([RedisServer.start(), OpenAiChatServer.start(), KubeApiServer.start()]);
    kube.create(webManifest(2));
    kube.settle();
  });
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const w of writers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await Promise.all([redis?.stop(), chat?.close(), kube?.close()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function replica(): Promise<string> {
    const { url, dir, p } = await startReplica({
      SVC_AUTH_TOKEN: TOKEN,
      REDIS_URL: redis.url,
      SVC_REDIS_PREFIX: PREFIX,
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
    });
    dirs.push(dir);
    procs.push(p);
    return url;
  }
  const call = (url: string, method: string, pathname: string, body?: Json) => callJson(url, method, pathname, { authorization: `Bearer ${TOKEN}` }, body);

  it('three processes appending at once and a replica’s write keep one unbroken chain; A’s change is reverted through B', async () => {
    const [a, b] = [await replica(), await replica()];
    for (const tag of ['r1', 'r2', 'r3']) writers.push(writer(redis.url, tag));
    await waitFor(() => writers.every((w) => w.out().startsWith('ready\n')), 'the writers to connect');

    chat.script(
      { toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }] },
      { content: 'web runs 2 replicas' },
      { content: planJson([scaleWeb(5)]) },
    );
    const plan = await call(a, 'POST', '/api/v1/tools/operate', { intent: 'scale web in x to 5' });
    expect(plan.status).to.equal(200);
    // every writer and replica A append at the same moment
    for (const w of writers) w.child.stdin!.end('go\n');
    const executed = await call(a, 'POST', '/api/v1/tools/operate', { sessionId: plan.json.data.result.sessionId, executeChoice: 1 });
    expect(executed.status).to.equal(200);
    const changeId: string = executed.json.data.result.execution.outcome.actions[0].ledgerId;
    expect(await Promise.all(writers.map((w) => w.exited)), writers.map((w) => w.err()).join('\n')).to.deep.equal([0, 0, 0]);
    expect(kube.objects.get(WEB)!.spec.replicas).to.equal(5);

    kube.settle();
    const reverted = await call(b, 'POST', `/api/v1/changes/${changeId}/revert`, {});
    expect(reverted.status, JSON.stringify(reverted.json)).to.equal(200);
    expect(reverted.json.data.original.id).to.equal(changeId);
    expect(reverted.json.data.revert).to.deep.include({ type: 'revert', revertOf: changeId, outcome: { status: 'applied' } });
    expect(kube.objects.get(WEB)!.spec.replicas).to.equal(2);
    // A sees B's revert: a second one through A is refused
    const again = await call(a, 'POST', `/api/v1/changes/${changeId}/revert`, {});
    expect(again.status).to.equal(409);
    expect(again.json.error.message).to.include('already reverted');

    // the two writes (A's change, B's revert) are an intent and an outcome each; the list shows the outcomes
    const total = 3 * APPENDS + 4;
    expect((await call(a, 'GET', '/api/v1/changes/integrity')).json.data).to.deep.include({ ok: true, entries: total });
    expect((await call(b, 'GET', '/api/v1/changes/integrity')).json.data).to.deep.include({ ok: true, entries: total });
    const entries: Json[] = (await call(b, 'GET', '/api/v1/changes?limit=500')).json.data.changes;
    expect(entries).to.have.length(total - 2);
    const intentIds = entries.flatMap((e) => (e.intentId ? [e.intentId] : []));
    expect(intentIds).to.have.length(2);
    const intents: Json[] = await Promise.all(intentIds.map(async (id) => (await call(b, 'GET', `/api/v1/changes/${id}`)).json.data));
    const chain = [...entries, ...intents].sort((x, y) => y.seq - x.seq);
    expect(chain.map((e) => e.seq)).to.deep.equal(Array.from({ length: total }, (_, i) => total - i));
    expect(new Set(chain.map((e) => e.prevHash)).size).to.equal(total);
    for (let i = 0; i + 1 < chain.length; i++) expect(chain[i].prevHash).to.equal(chain[i + 1].hash);
    // every acknowledged append is there once, as its writer wrote it
    const acked = writers.flatMap((w) =>
      w
        .out()
        .split('\n')
        .filter((l) => l.startsWith('ack ')),
    );
    expect(acked).to.have.length(3 * APPENDS);
    const byId = new Map(entries.map((e) => [e.id, e]));
    for (const line of acked) {
      const [, id, request] = line.split(' ');
      expect(byId.get(id)?.request).to.equal(request);
    }
    expect(entries.filter((e) => e.tool === 'operate').map((e) => e.id)).to.deep.equal([changeId]);
  });
});
