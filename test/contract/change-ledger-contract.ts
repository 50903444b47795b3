import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import { GENESIS_HASH, type ChangeEntry } from '../../domain/ledger/change-entry.js';
import { entryHash, verifyChain } from '../../domain/ledger/hash-chain.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { FakeClock } from '../support/fake-clock.js';
import { aChangeRecord } from '../support/ledger-records.js';
import { rejection } from '../support/rejection.js';

/** A fresh, empty ledger on `clock`; `reopen` another instance on the same storage (a restart or another replica). */
export type ChangeLedgerFactory = (clock: FakeClock) => Promise<{ ledger: ChangeLedger; reopen: () => ChangeLedger; cleanup: () => Promise<void> }>;

async function verify(ledger: ChangeLedger) {
  const { anchor, records } = await ledger.chain();
  return verifyChain(records, anchor);
}

async function allPages(ledger: ChangeLedger, limit: number, filter = {}): Promise<ChangeEntry[]> {
  const out: ChangeEntry[] = [];
  let beforeSeq: number | undefined;
  do {
    const page = await ledger.list(filter, { limit, beforeSeq });
    out.push(...page.entries);
    beforeSeq = page.nextBeforeSeq;
  } while (beforeSeq !== undefined);
  return out;
}

/** The behaviour every ChangeLedger shares (the port's JSDoc), run against each adapter and the fake. */
export function changeLedgerContract(name: string, factory: ChangeLedgerFactory): void {
  describe(`ChangeLedger contract: ${name}`, () => {
    let clock: FakeClock;
    let ledger: ChangeLedger;
    let reopen: () => ChangeLedger;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      clock = new FakeClock();
      ({ ledger, reopen, cleanup } = await factory(clock));
    });
    afterEach(async () => cleanup());

    it('seals each entry in a chain (seq, id, at, prevHash, hash) and reads it back whole, also from another instance', async () => {
      const first = await ledger.append(aChangeRecord());
      clock.advance(1000);
      const second = await ledger.append(aChangeRecord({ tool: 'remediate' }));
      expect(first).to.include({ seq: 1, prevHash: GENESIS_HASH, at: new Date(Date.UTC(2026, 0, 1)).toISOString() });
      expect(first.id).to.match(/^chg_1_[0-9a-f]{8}$/);
      expect(first.hash).to.equal(entryHash(first));
      expect(second).to.include({ seq: 2, prevHash: first.hash });
      expect(second.id).to.match(/^chg_2_[0-9a-f]{8}$/);
      expect({ ...first }).to.deep.include(aChangeRecord());
      expect(await ledger.get(first.id)).to.deep.equal(first);
      expect(await reopen().get(second.id)).to.deep.equal(second);
      expect(await verify(reopen())).to.deep.equal({ ok: true, entries: 2 });
    });

    it('answers undefined for an unknown, malformed or look-alike id', async () => {
      const e = await ledger.append(aChangeRecord());
      expect(await ledger.get('chg_9_00000000')).to.equal(undefined);
      expect(await ledger.get('../../etc/passwd')).to.equal(undefined);
      expect(await ledger.get(e.id.replace(/_[0-9a-f]{8}$/, '_ffffffff'))).to.equal(undefined);
    });

    it('hands out copies: changing an answer changes nothing stored', async () => {
      const e = await ledger.append(aChangeRecord());
      e.tool = 'tampered';
      (await ledger.get(e.id))!.caller.username = 'mallory';
      expect((await ledger.get(e.id))!).to.deep.include({ tool: 'operate', caller: { username: 'alice', roles: ['viewer', 'operator'] } });
    });

    it('keeps one unbroken chain when 40 appends run at once', async () => {
      const entries = await Promise.all(Array.from({ length: 40 }, (_, i) => ledger.append(aChangeRecord({ request: `r${i}` }))));
      expect(entries.map((e) => e.seq).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await verify(ledger)).to.deep.equal({ ok: true, entries: 40 });
    });

    it('lists newest first, filters on every key, and pages without a gap or a repeat', async () => {
      const made: ChangeEntry[] = [];
      for (let i = 0; i < 12; i++) {
        made.push(
          await ledger.append(
            aChangeRecord({
              caller: { username: i % 2 ? 'bob' : 'alice', roles: ['viewer', 'operator'] },
              tool: i % 3 ? 'operate' : 'remediate',
              sessionId: `opr_${String(i % 4).repeat(32)}`,
              target: { apiVersion: 'v1', kind: i % 2 ? 'ConfigMap' : 'Service', namespace: i < 6 ? 'shop' : 'blog', name: `n${i % 5}` },
              outcome: i === 7 ? { status: 'refused', reason: 'Invalid', message: 'no' } : { status: 'applied' },
            }),
          ),
        );
        clock.advance(60_000);
      }
      const seqs = (es: ChangeEntry[]) => es.map((e) => e.seq);
      expect(seqs((await ledger.list({}, { limit: 50 })).entries)).to.deep.equal(Array.from({ length: 12 }, (_, i) => 12 - i));
      expect(seqs(await allPages(ledger, 5))).to.deep.equal(Array.from({ length: 12 }, (_, i) => 12 - i));
      expect(seqs(await allPages(ledger, 2, { namespace: 'blog', caller: 'bob' }))).to.deep.equal([12, 10, 8]);
      expect(seqs((await ledger.list({ kind: 'Service', tool: 'remediate' }, { limit: 50 })).entries)).to.deep.equal([7, 1]);
      expect(seqs((await ledger.list({ name: 'n0' }, { limit: 50 })).entries)).to.deep.equal([11, 6, 1]);
      expect(seqs((await ledger.list({ sessionId: `opr_${'1'.repeat(32)}` }, { limit: 50 })).entries)).to.deep.equal([10, 6, 2]);
      expect(seqs((await ledger.list({ outcome: 'refused' }, { limit: 50 })).entries)).to.deep.equal([8]);
      const t0 = Date.UTC(2026, 0, 1);
      expect(seqs((await ledger.list({ since: t0 + 120_000, until: t0 + 240_000 }, { limit: 50 })).entries)).to.deep.equal([5, 4, 3]);
      const one = await ledger.list({}, { limit: 1 });
      expect(one.nextBeforeSeq).to.equal(12);
      expect((await ledger.list({ namespace: 'nowhere' }, { limit: 5 })).entries).to.deep.equal([]);
      expect(seqs((await reopen().list({ namespace: 'shop' }, { limit: 50 })).entries)).to.deep.equal([6, 5, 4, 3, 2, 1]);
    });

    it('refuses an entry over the size limit and writes nothing', async () => {
      const err = await rejection(
        ledger.append(aChangeRecord({ change: { method: 'apply', patchType: 'apply', body: { big: 'x'.repeat(5 * 1024 * 1024) } } })),
      );
      expect(err).to.be.instanceOf(ValidationError);
      expect((await ledger.list({}, { limit: 5 })).entries).to.deep.equal([]);
      expect((await ledger.append(aChangeRecord())).seq).to.equal(1);
    });

    it('prunes what retention drops and the chain still verifies, with the anchor at the last pruned entry', async () => {
      const old: ChangeEntry[] = [];
      for (let i = 0; i < 5; i++) old.push(await ledger.append(aChangeRecord({ request: `old ${i}` })));
      clock.advance(10 * 86_400_000);
      const cutoff = clock.now();
      const kept = await ledger.append(aChangeRecord({ request: 'recent' }));
      expect(await ledger.prune(cutoff)).to.equal(5);
      expect(await ledger.prune(cutoff)).to.equal(0);
      const { anchor } = await ledger.chain();
      expect(anchor).to.deep.equal({ seq: 5, hash: old[4].hash });
      expect(await ledger.get(old[0].id)).to.equal(undefined);
      expect((await ledger.list({}, { limit: 50 })).entries.map((e) => e.id)).to.deep.equal([kept.id]);
      // a restart (the file adapter has one writer per directory: the old instance is done)
      const restarted = reopen();
      const next = await restarted.append(aChangeRecord({ request: 'after the prune' }));
      expect(next).to.include({ seq: 7, prevHash: kept.hash });
      expect(await verify(restarted)).to.deep.equal({ ok: true, entries: 2 });
      // everything older: the anchor moves to the last entry, and the next one follows it
      clock.advance(86_400_000);
      expect(await restarted.prune(clock.now())).to.equal(2);
      const after = await restarted.append(aChangeRecord());
      expect(after).to.include({ seq: 8, prevHash: next.hash });
      expect(await verify(restarted)).to.deep.equal({ ok: true, entries: 1 });
    });
  });
}
