import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeApiServer } from '../support/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { analysisJson, requestedKind } from '../support/orgdata-http.js';
import { QdrantServer } from '../support/qdrant-server.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { runSvc, waitFor } from '../support/svc-process.js';

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
  const dirs: string[] = [];
  const procs: ReturnType<typeof runSvc>[] = [];

  before(async function () {
    requireRedisServer(this);
    [redis, qdrant, chat, kube] = await Promise.all([RedisServer.start(), new QdrantServer().start(), OpenAiChatServer.start(), KubeApiServer.start()]);
    chat.fallback = (body: Json) => ({ content: analysisJson(requestedKind(body)), delayMs: 250 });
  });
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all([redis?.stop(), qdrant?.stop(), chat?.close(), kube?.close()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function replica(): Promise<{ url: string; p: ReturnType<typeof runSvc> }> {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-replica-'));
    dirs.push(dir);
    const p = runSvc({
      HOST: '127.0.0.1',
      PORT: '0',
      SVC_AUTH_TOKEN: TOKEN,
      SVC_DATA_DIR: dir,
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
    procs.push(p);
    await waitFor(() => /"url":"([^"]+)"/.test(p.output()), 'svc listening');
    return { url: /"url":"([^"]+)"/.exec(p.output())![1], p };
  }

  const orgData = async (url: string, body: Json): Promise<Json> => {
    const res = await fetch(`${url}/api/v1/tools/manageOrgData`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Json;
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(json)}`);
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
    a.p.child.kill('SIGKILL');
    await a.p.exited;
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
