import { expect } from 'chai';
import { newScanState, type ScanState } from '../../domain/orgdata/scan-state.js';
import type { ScanStateStore } from '../../domain/ports/scan-state-store.js';
import { FakeClock } from '../support/fake-clock.js';

/** Builds a fresh, empty store on `clock`; `reopen` builds another instance on the same storage (a restart); `cleanup` releases it. */
export type ScanStateStoreFactory = (clock: FakeClock) => Promise<{ store: ScanStateStore; reopen: () => ScanStateStore; cleanup: () => Promise<void> }>;

const target = (kind: string) => ({
  id: `${kind.toLowerCase()}.apps`,
  group: 'apps',
  version: 'v1',
  apiVersion: 'apps/v1',
  kind,
  resource: `${kind.toLowerCase()}s`,
  namespaced: true,
});
const sample = (id = `scan_${'a'.repeat(32)}`): ScanState =>
  newScanState(id, 'all', [target('Deployment'), target('StatefulSet')], [], '2026-01-01T00:00:00.000Z');

/** The behaviour every ScanStateStore adapter shares (the port's JSDoc), run against each adapter and the fake. */
export function scanStateStoreContract(name: string, factory: ScanStateStoreFactory): void {
  describe(`ScanStateStore contract: ${name}`, () => {
    let clock: FakeClock;
    let store: ScanStateStore;
    let reopen: () => ScanStateStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      clock = new FakeClock();
      ({ store, reopen, cleanup } = await factory(clock));
    });
    afterEach(async () => cleanup());

    it('loads undefined before any save, then the state last saved, also after a restart', async () => {
      expect(await store.load()).to.equal(undefined);
      const first = sample();
      await store.save(first);
      const second = { ...sample(`scan_${'b'.repeat(32)}`), completed: ['deployment.apps'] };
      await store.save(second);
      expect(await store.load()).to.deep.equal(second);
      expect(await reopen().load()).to.deep.equal(second);
    });

    it('returns copies: changing what load returned or what was saved changes nothing stored', async () => {
      const state = sample();
      await store.save(state);
      state.completed.push('mutated');
      const read = (await store.load())!;
      read.pending.length = 0;
      expect(await store.load()).to.deep.equal(sample());
    });

    it('gives the lease to one holder until it expires, then to another', async () => {
      const a = await store.acquire('a', 1000);
      expect(a).to.deep.equal({ acquired: true, lease: { holder: 'a', expiresAt: clock.now() + 1000 } });
      const b = await store.acquire('b', 1000);
      expect(b).to.deep.equal({ acquired: false, lease: { holder: 'a', expiresAt: clock.now() + 1000 } });
      clock.advance(1000);
      expect((await store.acquire('b', 1000)).acquired, 'not yet expired at expiresAt').to.equal(false);
      clock.advance(1);
      expect(await store.acquire('b', 500)).to.deep.equal({ acquired: true, lease: { holder: 'b', expiresAt: clock.now() + 500 } });
      expect(await store.renew('a', 1000)).to.equal(false);
    });

    it('lets the holder acquire again and renew, extending the lease from now', async () => {
      await store.acquire('a', 1000);
      clock.advance(600);
      expect(await store.renew('a', 1000)).to.equal(true);
      clock.advance(600);
      expect((await store.acquire('b', 1000)).acquired).to.equal(false);
      expect((await store.acquire('a', 1000)).acquired).to.equal(true);
      clock.advance(1500);
      expect(await store.renew('a', 1000), 'expired but not taken: still ours').to.equal(true);
    });

    it('releases only for the holder; renew without a lease is false', async () => {
      expect(await store.renew('a', 1000)).to.equal(false);
      await store.acquire('a', 1000);
      await store.release('b');
      expect((await store.acquire('b', 1000)).acquired).to.equal(false);
      await store.release('a');
      expect(await store.renew('a', 1000)).to.equal(false);
      expect((await store.acquire('b', 1000)).acquired).to.equal(true);
    });

    it('keeps the lease across a restart of the store', async () => {
      await store.acquire('a', 1000);
      const again = reopen();
      expect((await again.acquire('b', 1000)).acquired).to.equal(false);
      clock.advance(1001);
      expect((await again.acquire('b', 1000)).acquired).to.equal(true);
    });

    it('of concurrent acquires by different holders, exactly one wins', async () => {
      const outcomes = await Promise.all(['a', 'b', 'c', 'd'].map((h) => store.acquire(h, 1000)));
      expect(outcomes.filter((o) => o.acquired)).to.have.length(1);
    });
  });
}
