import { expect } from 'chai';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { analysisJson, requestedKind } from '../support/orgdata-http.js';
import { QdrantServer } from '../support/qdrant-server.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { callJson, ReplicaProcesses, type Replica } from '../support/replica-processes.js';

const TOKEN = 'replica-test-token-0123456789';

type Json = Record<string, any>;

/**
 * Real svc processes sharing Debian's redis-server and the Qdrant stand-in:
 * a capability scan started on replica A, A killed with SIGKILL mid-scan,
 * the scan finished by replica B once A's lease expires.
 */
describe('replica processes: a scan survives the replica that started it', function () {
  this.timeout(90000);
  let redis: RedisServer;
  let qdrant: QdrantServer;
  let chat: OpenAiChatServer;
  let kube: KubeApiServer;
  let replicas: ReplicaProcesses;

  before(async function () {
    requireRedisServer(this);
    [redis, qdrant, chat, kube] = await Promise.all([RedisServer.start(), new QdrantServer().start(), OpenAiChatServer.start(), KubeApiServer.start()]);
    chat.fallback = (body: Json) => ({ content: analysisJson(requestedKind(body)), delayMs: 250 });
    replicas = new ReplicaProcesses({
      SVC_AUTH_TOKEN: TOKEN,
      REDIS_URL: redis.url,
      SVC_REDIS_PREFIX: 'svc-proc:',
      QDRANT_URL: qdrant.url,
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
      SVC_SCAN_LEASE_MS: '1500',
      SVC_SCAN_BATCH_SIZE: '2',
      SVC_EMBEDDINGS_DIMENSIONS: '64',
    });
  });
  after(async () => {
    replicas?.stop();
    await Promise.all([redis?.stop(), qdrant?.stop(), chat?.close(), kube?.close()]);
  });

  const replica = (): Promise<Replica> => replicas.start();
  const orgData = async (url: string, body: Json): Promise<Json> => {
    const { status, json } = await callJson(url, 'POST', '/api/v1/tools/manageOrgData', { authorization: `Bearer ${TOKEN}` }, body);
    if (status !== 200) throw new Error(`${status} ${JSON.stringify(json)}`);
    return json.data.result;
  };

  it('scan started on A, A killed mid-scan, B finishes it from the stored progress', async () => {
    const [a, b] = [await replica(), await replica()];
    const started = await orgData(a.url, { dataType: 'capabilities', operation: 'scan' });
    expect(started.started).to.equal(true);
    const total = started.progress.total as number;
    // B already sees A's progress (it is in Redis), and a second scan is refused while A holds the lease
    let seen: Json = {};
    for (let i = 0; i < 200; i++) {
      seen = (await orgData(b.url, { dataType: 'capabilities', operation: 'progress' })).progress;
      if (seen.done >= 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen.done).to.be.within(2, total - 1);
    expect((await orgData(b.url, { dataType: 'capabilities', operation: 'scan' })).started).to.equal(false);
    await a.kill();
    let done: Json = {};
    for (let i = 0; i < 600; i++) {
      done = (await orgData(b.url, { dataType: 'capabilities', operation: 'progress' })).progress;
      if (done.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(
      done,
      JSON.stringify(done) +
        b.p
          .output()
          .split('\n')
          .filter((l) => !l.includes('"msg":"request"'))
          .join('\n')
          .slice(-3000),
    ).to.deep.include({ scanId: started.scanId, status: 'completed', done: total, resumed: 1 });
    const listed = await orgData(b.url, { dataType: 'capabilities', operation: 'list', limit: 100 });
    expect(listed.total).to.equal(total - done.failures.length);
    expect(b.p.output()).to.contain('resuming interrupted capability scan');
  });
});
