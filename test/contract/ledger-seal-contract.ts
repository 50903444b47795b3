import { expect } from 'chai';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';
import { entryHash, sealEntry } from '../../domain/ledger/hash-chain.js';
import { sealHead } from '../../domain/ledger/ledger-seal.js';
import { entryText } from '../../domain/ledger/ledger-text.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { FakeClock } from '../support/fake-clock.js';
import { aChangeRecord } from '../support/ledger-records.js';
import { LEDGER_TEST_KEY, verify, type ChangeLedgerFactory } from './change-ledger-contract.js';

const KEY = LEDGER_TEST_KEY;
/** The key after a rotation. */
const NEW_KEY = 'the key after the rotation, 32+ characters long';

async function appendN(ledger: ChangeLedger, n: number, tag: string): Promise<ChangeEntry[]> {
  const made: ChangeEntry[] = [];
  for (let i = 0; i < n; i++) made.push(await ledger.append(aChangeRecord({ request: `${tag} ${i}` })));
  return made;
}

/**
 * What a store writer without SVC_LEDGER_KEY cannot hide, on every adapter
 * (the port's JSDoc: the head and the anchor are sealed, a flawed head is
 * carried), and key rotation. Each test plays the attacker on the store
 * itself, then restarts the ledger (a new instance on the same storage).
 */
export function ledgerSealContract(name: string, factory: ChangeLedgerFactory): void {
  describe(`ChangeLedger seals: ${name}`, () => {
    let clock: FakeClock;
    let made: Awaited<ReturnType<ChangeLedgerFactory>>;

    beforeEach(async () => {
      clock = new FakeClock();
      made = await factory(clock, KEY);
    });
    afterEach(async () => made.cleanup());

    it('the two newest entries removed and the head set to the entry before them are found after a restart, and still after the next append', async () => {
      const { ledger, reopen, store } = made;
      const entries = await appendN(ledger, 4, 'r');
      expect(await verify(reopen(), KEY)).to.deep.equal({ ok: true, entries: 4, keyed: true });
      await store.cutNewest();
      await store.cutNewest();
      // the seq and hash of the entry before them, both readable in the store; the head's seal left as it was
      await store.writeHead({ seq: 2, hash: entries[1].hash });
      const found = await verify(reopen(), KEY);
      expect(found).to.deep.include({ ok: false, entries: 2 });
      expect(found.problem).to.match(/head .*position 2.* carrying a seal that SVC_LEDGER_KEY does not make.*entries after position 2 may have been removed/);
      // the seal removed as well
      await store.writeHead({ mac: undefined, flaw: undefined });
      const unsealed = await verify(reopen(), KEY);
      expect(unsealed).to.deep.include({ ok: false, entries: 2 });
      expect(unsealed.problem).to.match(/head .*position 2.* carrying no seal/);
      // a thorough store writer rewrites the entries too (on Redis: the stream, so appends go on), with a head carrying no seal:
      // svc appends after it (refusing would stop every write), and the finding stays, in every later head
      await store.replace((await store.texts()).slice(0, 2));
      const next = await reopen().append(aChangeRecord({ request: 'after the cut' }));
      expect(next).to.include({ seq: 3, prevHash: entries[1].hash });
      await reopen().append(aChangeRecord({ request: 'and another' }));
      const later = await verify(reopen(), KEY);
      expect(later).to.deep.include({ ok: false, entries: 4 });
      expect(later.problem).to.match(/^svc found the head at position 2 on 2026-.* carrying no seal.*removed then/);
      // the finding is under the head's seal: dropping it breaks the seal
      await store.writeHead({ flaw: undefined });
      expect((await verify(reopen(), KEY)).problem).to.match(/head .*position 4.* carrying a seal that SVC_LEDGER_KEY does not make/);
    });

    it('the oldest entries removed with the anchor rewritten to match are found', async () => {
      const { ledger, reopen, store } = made;
      await appendN(ledger, 3, 'old');
      clock.advance(10 * 86_400_000);
      const recent = await appendN(ledger, 3, 'recent');
      expect(await ledger.prune(clock.now())).to.equal(3);
      expect(await verify(reopen(), KEY)).to.deep.equal({ ok: true, entries: 3, keyed: true });
      await store.cutOldest();
      await store.writeAnchor({ seq: 4, hash: recent[0].hash });
      const found = await verify(reopen(), KEY);
      expect(found).to.deep.include({ ok: false, entries: 2 });
      expect(found.problem).to.match(/anchor \(position 4.* has a seal that SVC_LEDGER_KEY does not make.*oldest entries may have been removed/);
      await store.writeAnchor({ mac: undefined });
      expect((await verify(reopen(), KEY)).problem).to.match(/anchor \(position 4.* carries no seal/);
    });

    it('a rotation: what the previous key sealed verifies with SVC_LEDGER_KEY_PREVIOUS; after it, the previous key alone can neither append nor cut', async () => {
      const { ledger, reopen, store } = made;
      await appendN(ledger, 2, 'old');
      clock.advance(10 * 86_400_000);
      await appendN(ledger, 2, 'before the rotation');
      expect(await ledger.prune(clock.now())).to.equal(2);
      const rotation = { key: NEW_KEY, previousKey: KEY };
      // entries, the head and the anchor sealed before the rotation
      expect(await verify(reopen(rotation), rotation)).to.deep.equal({ ok: true, entries: 2, keyed: true, previousKey: 2 });
      expect(await verify(reopen(rotation), { key: NEW_KEY })).to.deep.include({ ok: false, entries: 2 });
      const after = await appendN(reopen(rotation), 2, 'after the rotation');
      // sealed with the new key from the first append after the rotation
      expect(after[0].hash).to.equal(entryHash(after[0], NEW_KEY));
      expect(await verify(reopen(rotation), rotation)).to.deep.equal({ ok: true, entries: 4, keyed: true, previousKey: 2 });
      const texts = await store.texts();
      // whoever holds only the old key cuts the newest entry and seals a head at the one before it
      await store.replace(texts.slice(0, 3), sealHead({ seq: 5, hash: after[0].hash }, KEY));
      const cut = await verify(reopen(rotation), rotation);
      expect(cut).to.deep.include({ ok: false, entries: 3 });
      expect(cut.problem).to.match(/position 5.* sealed with SVC_LEDGER_KEY_PREVIOUS although its entry is sealed with SVC_LEDGER_KEY/);
      // or appends an entry sealed with the old key, with a head to match
      const forged = sealEntry(aChangeRecord({ request: 'old key' }), { seq: 7, prevHash: after[1].hash, atMs: clock.now(), random8Hex: '0badc0de' }, KEY);
      await store.replace([...texts, entryText(forged)], sealHead({ seq: 7, hash: forged.hash }, KEY));
      const appended = await verify(reopen(rotation), rotation);
      expect(appended).to.deep.include({ ok: false, firstBrokenId: forged.id });
      expect(appended.problem).to.match(/sealed with SVC_LEDGER_KEY_PREVIOUS although an entry before it is sealed with SVC_LEDGER_KEY/);
    });

    it('a head with no seal (an svc before heads were sealed) is reported until SVC_LEDGER_ACCEPT_HEAD names it; the heads after are sealed', async () => {
      const { ledger, reopen, store } = made;
      const entries = await appendN(ledger, 2, 'r');
      await store.writeHead({ mac: undefined });
      const report = await verify(reopen(), KEY);
      expect(report).to.deep.include({ ok: false, entries: 2 });
      expect(report.problem).to.include(`SVC_LEDGER_ACCEPT_HEAD=2:${entries[1].hash} accepts it`);
      const accept = { key: KEY, acceptHead: { seq: 2, hash: entries[1].hash } };
      expect(await verify(reopen(accept), accept)).to.deep.equal({ ok: true, entries: 2, keyed: true });
      await reopen(accept).append(aChangeRecord({ request: 'after the upgrade' }));
      expect(await verify(reopen(), KEY)).to.deep.equal({ ok: true, entries: 3, keyed: true });
      // the variable names one head: another unsealed one is reported all the same
      await store.writeHead({ mac: undefined });
      expect(await verify(reopen(accept), accept)).to.deep.include({ ok: false, entries: 3 });
    });
  });
}
