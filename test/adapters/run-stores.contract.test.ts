import { expect } from 'chai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileRunStore } from '../../infrastructure/runs/file-run-store.js';
import { MemoryRunStore } from '../../infrastructure/runs/memory-run-store.js';
import { RedisRunStore } from '../../infrastructure/runs/redis-run-store.js';
import { aRun, RUN_CONTRACT_TTL_MS, runStoreContract } from '../contract/run-store-contract.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { FakeClock } from '../support/fake-clock.js';
import { connectRedis, useRedis } from '../support/redis-fixture.js';

runStoreContract('memory', async (clock) => ({
  store: new MemoryRunStore({ ttlMs: RUN_CONTRACT_TTL_MS, clock }),
  cleanup: async () => undefined,
  expire: (ms) => clock.advance(ms),
}));

runStoreContract('files', async (clock) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-runs-'));
  return {
    store: new FileRunStore(dir, { ttlMs: RUN_CONTRACT_TTL_MS, clock, logger: new CapturingLogger() }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
    expire: (ms) => clock.advance(ms),
  };
});

describe('FileRunStore across a restart', () => {
  it('reads runs back; one left queued or running by the stopped process is failed as interrupted, with its done event', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-runs-'));
    try {
      const clock = new FakeClock();
      const options = { ttlMs: RUN_CONTRACT_TTL_MS, clock, logger: new CapturingLogger() };
      const before = new FileRunStore(dir, options);
      const running = aRun(clock, { status: 'running' });
      const done = aRun(clock, { status: 'succeeded', result: { a: [] } });
      await before.create(running);
      await before.create(done);
      await before.append(running.runId, { type: 'model-call', at: 't', data: {} });
      await before.close();
      expect((await readdir(dir)).sort()).to.deep.equal([`${running.runId}.json`, `${done.runId}.json`].sort());

      const after = new FileRunStore(dir, options);
      expect(await after.get(done.runId)).to.deep.equal(done);
      expect(await after.get(running.runId)).to.deep.include({
        status: 'failed',
        error: { code: 'INTERRUPTED', message: 'interrupted: the replica running it stopped' },
      });
      expect((await after.events(running.runId, 0)).map((e) => e.type)).to.deep.equal(['model-call', 'done']);
      await after.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('RedisRunStore on a real redis-server', function () {
  this.timeout(30_000);
  const redis = useRedis('svc-test-runs:');
  runStoreContract('redis', async (clock) => ({
    store: new RedisRunStore(redis.conn, { ttlMs: RUN_CONTRACT_TTL_MS, clock, logger: new CapturingLogger() }),
    cleanup: async () => void (await redis.conn.client.flushdb()),
  }));

  it('keeps the per-caller limit across replicas: two connections racing, exactly the limit is stored', async () => {
    const other = await connectRedis(redis.server.url, 'svc-test-runs:');
    try {
      const clock = new FakeClock();
      const options = { ttlMs: RUN_CONTRACT_TTL_MS, clock, logger: new CapturingLogger() };
      const [a, b] = [new RedisRunStore(redis.conn, options), new RedisRunStore(other, options)];
      const caller = { username: 'racer', kind: 'static' as const };
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).create(aRun(clock, { caller }), 4)));
      expect(results.filter((r) => r.created)).to.have.length(4);
      expect(await b.countActive('static:svc:racer')).to.equal(4);
      await Promise.all([a.close(), b.close()]);
    } finally {
      await other.close();
      await redis.conn.client.flushdb();
    }
  });
});
