import { expect } from 'chai';
import type { IngestedSource } from '../../domain/uploads/ingested-source.js';
import type { RedisConnection } from '../../infrastructure/redis/redis-connection.js';
import { RedisIngestedSourceStore } from '../../infrastructure/uploads/redis-ingested-source-store.js';
import { InMemoryIngestedSourceStore } from '../../infrastructure/uploads/in-memory-ingested-source-store.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { useRedis, waitReady } from '../support/redis-fixture.js';

const LIMITS = { maxSources: 10, maxBytes: 1 << 20, ttlMs: 60000 };

function source(key: string, text: string): IngestedSource {
  const content = Buffer.from(text);
  return {
    key,
    source: `local:${key}`,
    contentHash: `sha256:${'0'.repeat(64)}`,
    files: [{ path: 'demo/SKILL.md', mode: 0o644, content }],
    totalBytes: content.length,
  };
}

/** A replica's store: its own empty first level over the shared connection. */
const replica = (conn: RedisConnection) => new RedisIngestedSourceStore(conn, new InMemoryIngestedSourceStore(LIMITS), LIMITS, new CapturingLogger());

describe('RedisIngestedSourceStore on a real redis-server', function () {
  this.timeout(30000);
  const redis = useRedis('svc-src:');
  afterEach(async () => void (await redis.conn.client.flushdb()));

  it('serves an upload to another replica, with a TTL on the pointer and on its content-addressed blob', async () => {
    await replica(redis.conn).put(source('k1', 'hello'));
    const read = (await replica(redis.conn).get('k1'))!;
    expect(read.files[0]!.content.toString()).to.equal('hello');
    expect(read).to.deep.include({ key: 'k1', source: 'local:k1', totalBytes: 5 });
    const keys = (await redis.conn.client.keys('svc-src:*')).sort();
    expect(keys.filter((k) => k.startsWith('svc-src:blob:'))).to.have.length(1);
    for (const k of keys.filter((k) => /^svc-src:(source|blob):/.test(k))) expect(await redis.conn.client.pttl(k)).to.be.within(50000, 60000);
  });

  it('loses no acknowledged upload across a kill -9 with append-only on', async () => {
    const store = replica(redis.conn);
    await store.put(source('k2', 'survives a crash'));
    await redis.server.restart({ kill: true });
    await waitReady(redis.conn);
    // a replica that never saw it (empty first level) reads it back from Redis
    const read = await replica(redis.conn).get('k2');
    expect(read?.files[0]!.content.toString()).to.equal('survives a crash');
  });
});
