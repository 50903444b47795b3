import { expect } from 'chai';
import { DependencyError } from '../../domain/errors.js';
import type { RedisConnection } from '../../infrastructure/redis/redis-connection.js';
import { RedisSessionStore } from '../../infrastructure/sessions/redis-session-store.js';
import { CONTRACT_TTL_MS, sessionStoreContract } from '../contract/session-store-contract.js';
import { FakeClock } from '../support/fake-clock.js';
import { connectRedis, requireRedisServer, waitReady } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { rejection } from '../support/rejection.js';

describe('RedisSessionStore on a real redis-server', function () {
  this.timeout(30000);
  let server: RedisServer;
  let conn: RedisConnection;

  before(async function () {
    requireRedisServer(this);
    server = await RedisServer.start();
    conn = await connectRedis(server.url);
  });
  after(async () => {
    await conn?.close();
    await server?.stop();
  });

  sessionStoreContract('redis', async (clock) => ({
    store: new RedisSessionStore(conn, { ttlMs: CONTRACT_TTL_MS, clock }),
    cleanup: async () => void (await conn.client.flushdb()),
  }));

  it('keeps the revision check atomic across replicas: of 20 updates from two connections, one wins', async () => {
    const other = await connectRedis(server.url);
    try {
      const clock = new FakeClock();
      const a = new RedisSessionStore(conn, { ttlMs: 60000, clock });
      const b = new RedisSessionStore(other, { ttlMs: 60000, clock });
      const s = await a.create('remediation', { step: 0 });
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).update('remediation', s.id, 1, { step: i })));
      expect(results.filter((r) => !r.conflict)).to.have.length(1);
      expect((await b.get<{ step: number }>('remediation', s.id))!.revision).to.equal(2);
    } finally {
      await other.close();
    }
  });

  it('sets a Redis TTL, keys carry the prefix, and nothing acknowledged is lost across a kill -9 with append-only on', async () => {
    const store = new RedisSessionStore(conn, { ttlMs: 60000, clock: { now: () => Date.now() } });
    const s = await store.create('operation', { plan: 'scale web to 3' });
    const key = `svc-test:session:operation:${s.id}`;
    const ttl = await conn.client.pttl(key);
    expect(ttl).to.be.within(50000, 60000);
    await server.restart({ kill: true });
    await waitReady(conn);
    expect((await store.get<{ plan: string }>('operation', s.id))!.state).to.deep.equal({ plan: 'scale web to 3' });
  });

  it('fails fast naming Redis while it is down, and works again when it is back, without a new client', async () => {
    const store = new RedisSessionStore(conn, { ttlMs: 60000, clock: { now: () => Date.now() } });
    await server.halt();
    const started = Date.now();
    const e = await rejection(store.create('solution', {}));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.match(/^Redis at redis:\/\/127\.0\.0\.1:\d+ failed to create a session: /);
    expect(Date.now() - started).to.be.below(3000);
    expect((await conn.status()).connected).to.equal(false);
    await server.restart();
    await waitReady(conn);
    expect((await store.create('solution', {})).revision).to.equal(1);
    expect((await conn.status()).connected).to.equal(true);
  });
});

describe('RedisConnection credentials', function () {
  this.timeout(20000);
  it('never shows the password in a message, status or log line', async function () {
    requireRedisServer(this);
    const password = 'redis-canary-pass-0123456789';
    const server = await RedisServer.start({ password });
    try {
      const good = await connectRedis(server.url);
      expect((await good.status()).url).not.to.contain(password);
      await good.close();
      const { CapturingLogger } = await import('../support/capturing-logger.js');
      const logger = new CapturingLogger();
      const { RedisConnection } = await import('../../infrastructure/redis/redis-connection.js');
      const wrong = new RedisConnection(server.url.replace(encodeURIComponent(password), 'wrong-canary-pass-99'), 'x:', logger);
      await new Promise((r) => setTimeout(r, 300));
      const status = await wrong.status();
      expect(status.connected).to.equal(false);
      expect(JSON.stringify(status) + logger.text())
        .not.to.contain(password)
        .and.not.to.contain('wrong-canary-pass-99');
      await wrong.close();
    } finally {
      await server.stop();
    }
  });
});
