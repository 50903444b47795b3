import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { QdrantServer } from '../support/qdrant-server.js';
import { startReplica } from '../support/svc-process.js';

const TOKEN = 'clean-start-token-0123456789abcdef';
type Line = { level: number | string; msg?: string };
const WARN_OR_WORSE = new Set(['warn', 'error', 'fatal', 40, 50, 60]);

describe('a start on a healthy Redis', function () {
  this.timeout(60000);
  let redis: RedisServer;
  let qdrant: QdrantServer;
  before(async function () {
    requireRedisServer(this);
    [redis, qdrant] = await Promise.all([RedisServer.start(), new QdrantServer().start()]);
  });
  after(async () => {
    await Promise.all([redis?.stop(), qdrant?.stop()]);
  });

  it('logs only JSON lines, no warning or error, and connects before it serves anything but /healthz or resumes background work', async () => {
    const { url, dir, p } = await startReplica({ SVC_AUTH_TOKEN: TOKEN, REDIS_URL: redis.url, QDRANT_URL: qdrant.url });
    try {
      expect((await fetch(`${url}/healthz`)).status).to.equal(200);
      const version = await fetch(`${url}/api/v1/tools/version`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(
        ((await version.json()) as { data: { result: { system: { sharedState: { connected: boolean } } } } }).data.result.system.sharedState.connected,
      ).to.equal(true);
      // the ledger's retention and the scan resume run right after listening: give them time to touch Redis
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
      rmSync(dir, { recursive: true, force: true });
    }
    const lines = p
      .output()
      .split('\n')
      .filter((l) => l.trim() !== '');
    const notJson = lines.filter((l) => {
      try {
        JSON.parse(l);
        return false;
      } catch {
        return true;
      }
    });
    expect(notJson).to.deep.equal([]);
    const parsed = lines.map((l) => JSON.parse(l) as Line);
    expect(parsed.filter((l) => WARN_OR_WORSE.has(l.level))).to.deep.equal([]);
    const at = (msg: string) => parsed.findIndex((l) => l.msg === msg);
    expect(at('redis connected')).to.be.at.least(0);
    // it listens at once (answering /healthz, holding the rest), and attaches the app once Redis is up
    expect(at('svc listening')).to.be.at.least(0);
    expect(at('redis connected')).to.be.below(at('svc ready'));
    expect(at('draining')).to.be.above(at('svc ready'));
  });
});
