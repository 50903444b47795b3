import { expect } from 'chai';
import type { RedisConnection } from '../../infrastructure/redis/redis-connection.js';
import { RedisScanStateStore } from '../../infrastructure/redis/redis-scan-state-store.js';
import { scanStateStoreContract } from '../contract/scan-state-store-contract.js';
import { FakeClock } from '../support/fake-clock.js';
import { connectRedis, requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';

describe('RedisScanStateStore on a real redis-server', function () {
  this.timeout(30000);
  let server: RedisServer;
  let conn: RedisConnection;
  before(async function () {
    requireRedisServer(this);
    server = await RedisServer.start();
    conn = await connectRedis(server.url, 'svc-scan:');
  });
  after(async () => {
    await conn?.close();
    await server?.stop();
  });

  scanStateStoreContract('redis', async (clock) => ({
    store: new RedisScanStateStore(conn, clock),
    reopen: () => new RedisScanStateStore(conn, clock),
    cleanup: async () => void (await conn.client.flushdb()),
  }));

  it('lets exactly one of two replicas take the lease at once, and the other after it expires', async () => {
    const other = await connectRedis(server.url, 'svc-scan:');
    try {
      const clock = new FakeClock();
      const [a, b] = [new RedisScanStateStore(conn, clock), new RedisScanStateStore(other, clock)];
      const outcomes = await Promise.all([a.acquire('replica-a', 1000), b.acquire('replica-b', 1000), a.acquire('replica-a2', 1000), b.acquire('replica-b2', 1000)]);
      expect(outcomes.filter((o) => o.acquired)).to.have.length(1);
      const winner = outcomes.find((o) => o.acquired)!.lease.holder;
      expect(winner).to.match(/^replica-/);
      expect((await b.acquire('late', 1000)).acquired).to.equal(false);
      clock.advance(1001);
      expect(await b.acquire('late', 1000)).to.deep.equal({ acquired: true, lease: { holder: 'late', expiresAt: clock.now() + 1000 } });
      expect(await a.renew(winner, 1000)).to.equal(false);
    } finally {
      await other.close();
      await conn.client.flushdb();
    }
  });
});
