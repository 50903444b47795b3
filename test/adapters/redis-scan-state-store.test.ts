import { expect } from 'chai';
import { newScanState } from '../../domain/orgdata/scan-state.js';
import { RedisScanStateStore } from '../../infrastructure/scans/redis-scan-state-store.js';
import { scanStateStoreContract } from '../contract/scan-state-store-contract.js';
import { FakeClock } from '../support/fake-clock.js';
import { connectRedis, useRedis, waitReady } from '../support/redis-fixture.js';

describe('RedisScanStateStore on a real redis-server', function () {
  this.timeout(30000);
  const redis = useRedis('svc-scan:');

  scanStateStoreContract('redis', async (clock) => ({
    store: new RedisScanStateStore(redis.conn, clock),
    reopen: () => new RedisScanStateStore(redis.conn, clock),
    cleanup: async () => void (await redis.conn.client.flushdb()),
  }));

  it('loses no acknowledged progress or lease across a kill -9 with append-only on', async () => {
    const clock = new FakeClock();
    const store = new RedisScanStateStore(redis.conn, clock);
    const target = {
      id: 'deployment.apps',
      group: 'apps',
      version: 'v1',
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      resource: 'deployments',
      namespaced: true,
    };
    const state = { ...newScanState(`scan_${'c'.repeat(32)}`, 'all', [target], [], '2026-01-01T00:00:00.000Z'), completed: ['statefulset.apps'] };
    await store.save(state);
    const taken = await store.acquire('replica-a', 60000);
    expect(taken.acquired).to.equal(true);
    await redis.server.restart({ kill: true });
    await waitReady(redis.conn);
    expect(await store.load()).to.deep.equal(state);
    expect((await store.acquire('replica-b', 60000)).acquired).to.equal(false);
    expect(await store.renew('replica-a', 60000)).to.equal(true);
    await redis.conn.client.flushdb();
  });

  it('keeps each cluster’s slot and lease apart from the others’ and from the single-cluster slot', async () => {
    const clock = new FakeClock();
    const [single, staging, production] = [undefined, 'staging', 'arn:aws:eks:eu:1:cluster/prod'].map((c) => new RedisScanStateStore(redis.conn, clock, c));
    const state = newScanState(`scan_${'d'.repeat(32)}`, 'all', [], [], '2026-01-01T00:00:00.000Z');
    await staging.save(state);
    expect(await staging.load()).to.deep.equal(state);
    expect(await production.load()).to.equal(undefined);
    expect(await single.load()).to.equal(undefined);
    expect((await staging.acquire('replica-a', 60000)).acquired).to.equal(true);
    expect((await production.acquire('replica-b', 60000)).acquired, 'another cluster’s lease is free').to.equal(true);
    expect((await single.acquire('replica-c', 60000)).acquired).to.equal(true);
    expect((await staging.acquire('replica-b', 60000)).acquired).to.equal(false);
    expect(await redis.conn.client.exists('svc-scan:scan:cluster:staging:state')).to.equal(1);
    await redis.conn.client.flushdb();
  });

  it('lets exactly one of two replicas take the lease at once, and the other after it expires', async () => {
    const other = await connectRedis(redis.server.url, 'svc-scan:');
    try {
      const clock = new FakeClock();
      const [a, b] = [new RedisScanStateStore(redis.conn, clock), new RedisScanStateStore(other, clock)];
      const outcomes = await Promise.all([
        a.acquire('replica-a', 1000),
        b.acquire('replica-b', 1000),
        a.acquire('replica-a2', 1000),
        b.acquire('replica-b2', 1000),
      ]);
      expect(outcomes.filter((o) => o.acquired)).to.have.length(1);
      const winner = outcomes.find((o) => o.acquired)!.lease.holder;
      expect(winner).to.match(/^replica-/);
      expect((await b.acquire('late', 1000)).acquired).to.equal(false);
      clock.advance(1001);
      expect(await b.acquire('late', 1000)).to.deep.equal({ acquired: true, lease: { holder: 'late', expiresAt: clock.now() + 1000 } });
      expect(await a.renew(winner, 1000)).to.equal(false);
    } finally {
      await other.close();
      await redis.conn.client.flushdb();
    }
  });
});
