import { expect } from 'chai';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { webManifest } from '../support/operate-fixtures.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { openSse } from '../support/sse-client.js';
import { callJson, ReplicaProcesses, type Replica } from '../support/replica-processes.js';

const TOKEN = 'runs-replica-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
type Json = Record<string, any>;

/**
 * Two real svc processes on one redis-server: a run started on A is shown,
 * streamed and cancelled from B; A killed mid-run leaves its run failed,
 * "interrupted: the replica running it stopped", once A's lease lapses.
 */
describe('runs on two replica processes sharing Redis', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  let chat: OpenAiChatServer;
  let kube: KubeApiServer;
  let replicas: ReplicaProcesses;

  before(async function () {
    requireRedisServer(this);
    [redis, chat, kube] = await Promise.all([RedisServer.start(), OpenAiChatServer.start(), KubeApiServer.start()]);
    kube.create(webManifest(2));
    kube.settle();
    replicas = new ReplicaProcesses({
      SVC_AUTH_TOKEN: TOKEN,
      REDIS_URL: redis.url,
      SVC_REDIS_PREFIX: 'svc-runs:',
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
      // long enough for a replica's first cluster call, which loads the Kubernetes library synchronously on a busy machine
      SVC_RUNS_LEASE_MS: '8000',
      SVC_RUNS_HEARTBEAT_MS: '200',
    });
  });
  after(async () => {
    replicas?.stop();
    await Promise.all([redis?.stop(), chat?.close(), kube?.close()]);
  });

  const replica = (): Promise<Replica> => replicas.start();
  const call = (url: string, method: string, pathname: string, body?: Json) => callJson(url, method, pathname, { ...auth, prefer: 'respond-async' }, body);
  const show = async (url: string, runId: string) => (await call(url, 'GET', `/api/v1/runs/${runId}`)).json.data;

  it('start on A; B shows it, streams it and cancels it; A killed mid-run leaves its run failed with the reason', async () => {
    const [a, b] = [await replica(), await replica()];
    chat.script(
      {
        toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
        delayMs: 300,
      },
      { hang: true },
    );
    const started = await call(a.url, 'POST', '/api/v1/tools/operate', { intent: 'scale web in namespace x to 5 replicas' });
    expect(started.status).to.equal(202);
    const { runId } = started.json.data;
    const stream = await openSse(`${b.url}/api/v1/runs/${runId}/events`, auth);
    expect(stream.status).to.equal(200);
    await stream.until((s) => s.messages.filter((m) => m.event === 'model-call').length === 2 || s.messages.some((m) => m.event === 'done'), 10_000);
    expect(stream.messages.map((m) => m.event)).to.deep.equal(['model-call', 'function-call', 'model-call']);
    expect((await show(b.url, runId)).status).to.equal('running');
    expect((await call(b.url, 'GET', '/api/v1/runs?status=running')).json.data.runs.map((r: Json) => r.runId)).to.deep.equal([runId]);

    const asked = Date.now();
    const cancelled = await call(b.url, 'DELETE', `/api/v1/runs/${runId}`);
    expect(Date.now() - asked).to.be.below(2000);
    expect(cancelled.status, JSON.stringify(cancelled.json)).to.equal(200);
    expect(cancelled.json.data.status).to.equal('cancelled');
    await stream.ended;
    expect(JSON.parse(stream.messages.at(-1)!.data!)).to.deep.include({ type: 'done', data: { status: 'cancelled', error: cancelled.json.data.error } });
    expect((await show(a.url, runId)).status).to.equal('cancelled');
    expect((await call(a.url, 'DELETE', `/api/v1/runs/${runId}`)).status).to.equal(409);

    // A dies mid-run: nobody renews its lease; B's stream and B's reads settle the run as interrupted
    chat.script({ hang: true });
    const second = (await call(a.url, 'POST', '/api/v1/tools/operate', { intent: 'scale web in namespace x to 6 replicas' })).json.data.runId;
    for (let i = 0; i < 100 && (await show(b.url, second)).status !== 'running'; i++) await new Promise((r) => setTimeout(r, 50));
    const watching = await openSse(`${b.url}/api/v1/runs/${second}/events`, auth);
    await a.kill();
    await watching.ended;
    const last = JSON.parse(watching.messages.at(-1)!.data!);
    expect(last).to.deep.include({ type: 'done' });
    expect(last.data).to.deep.equal({ status: 'failed', error: { code: 'INTERRUPTED', message: 'interrupted: the replica running it stopped' } });
    expect(await show(b.url, second)).to.deep.include({
      status: 'failed',
      error: { code: 'INTERRUPTED', message: 'interrupted: the replica running it stopped' },
    });
  });
});
