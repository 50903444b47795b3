import { expect } from 'chai';
import { ConflictError, ValidationError } from '../../domain/errors.js';
import { GENESIS_HASH, type ChangeEntry } from '../../domain/ledger/change-entry.js';
import { entryHash, verifyChain, GENESIS_ANCHOR, type ChainAnchor, type IntegrityReport } from '../../domain/ledger/hash-chain.js';
import type { LedgerKeys } from '../../domain/ledger/ledger-seal.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { FakeClock } from '../support/fake-clock.js';
import { aChangeRecord, anIntentRecord } from '../support/ledger-records.js';
import { rejection } from '../support/rejection.js';

/** The store under a ledger, as someone with access to it (not through svc) sees it: to play tampering. */
export interface LedgerStoreAccess {
  /** The entries' stored texts, oldest first. */
  texts(): Promise<string[]>;
  /** Puts these texts in place of the entries, and this head in place of the head when given. */
  replace(texts: string[], head?: ChainAnchor): Promise<void>;
  /** Removes the newest entry the way an attacker would on this store (cut the file's last line; XDEL the last stream item). */
  cutNewest(): Promise<void>;
  /** Removes the oldest entry (the file's first entry line; XDEL the first stream item). */
  cutOldest(): Promise<void>;
  /** Sets these fields of the stored head, the others left as they are (`undefined` removes one): `HSET`, or an edit of the head file. */
  writeHead(fields: Record<string, unknown>): Promise<void>;
  /** The same for the anchor (the file's anchor line, the anchor key). */
  writeAnchor(fields: Record<string, unknown>): Promise<void>;
}

/**
 * A fresh, empty ledger on `clock` (sealing with `key` when given); `reopen`
 * another instance on the same storage (a restart or another replica), with
 * other keys when given (a rotation, SVC_LEDGER_ACCEPT_HEAD).
 */
export type ChangeLedgerFactory = (
  clock: FakeClock,
  key?: string,
) => Promise<{ ledger: ChangeLedger; reopen: (keys?: LedgerKeys) => ChangeLedger; cleanup: () => Promise<void>; store: LedgerStoreAccess }>;

/** The walk over what the ledger answers now, without the head (tests compare everything else whole). */
export async function verify(ledger: ChangeLedger, keys: string | LedgerKeys = {}): Promise<IntegrityReport> {
  const { anchor, head, records } = await ledger.chain();
  const { head: _head, ...report } = await verifyChain(records, anchor, { head, ...(typeof keys === 'string' ? { key: keys } : keys) });
  return report;
}

/** An entry rewritten by someone without the key: `from` on edited and every later hash recomputed as plain SHA-256 (and the head to match). */
function forge(texts: string[], from: number, edit: (e: ChangeEntry) => void): { texts: string[]; head: ChainAnchor } {
  const out = texts.slice(0, from);
  let prev = from > 0 ? (JSON.parse(texts[from - 1]) as ChangeEntry).hash : GENESIS_ANCHOR.hash;
  let last: ChangeEntry | undefined;
  for (const t of texts.slice(from)) {
    const e = JSON.parse(t) as ChangeEntry;
    if (!last) edit(e);
    delete e.mac;
    e.prevHash = prev;
    e.hash = entryHash(e);
    out.push(JSON.stringify(e));
    prev = e.hash;
    last = e;
  }
  return { texts: out, head: { seq: last!.seq, hash: last!.hash } };
}

export const LEDGER_TEST_KEY = 'k'.repeat(16) + '0123456789abcdef0123';

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
    let store: LedgerStoreAccess;

    beforeEach(async () => {
      clock = new FakeClock();
      ({ ledger, reopen, cleanup, store } = await factory(clock));
    });
    afterEach(async () => cleanup());

    it('an intent is an entry of the chain: open until one outcome names it, listed while open, hidden once closed, also after a restart', async () => {
      const intent = await ledger.append(anIntentRecord());
      expect(intent).to.include({ seq: 1, type: 'intent' });
      expect(intent.outcome).to.deep.equal({ status: 'pending' });
      expect(intent.hash).to.equal(entryHash(intent));
      expect((await ledger.openIntents()).map((e) => e.id)).to.deep.equal([intent.id]);
      expect((await ledger.list({}, { limit: 10 })).entries.map((e) => e.id)).to.deep.equal([intent.id]);
      expect((await ledger.list({ outcome: 'pending' }, { limit: 10 })).entries.map((e) => e.id)).to.deep.equal([intent.id]);
      const open = await verify(reopen());
      expect(open).to.deep.equal({ ok: true, entries: 1, openIntents: { count: 1, ids: [intent.id] } });
      const outcome = await ledger.append(aChangeRecord({ intentId: intent.id }));
      expect(outcome).to.include({ seq: 2, prevHash: intent.hash, intentId: intent.id });
      expect(await ledger.openIntents()).to.deep.equal([]);
      expect((await ledger.list({}, { limit: 10 })).entries.map((e) => e.id)).to.deep.equal([outcome.id]);
      expect((await ledger.list({ outcome: 'pending' }, { limit: 10 })).entries).to.deep.equal([]);
      // the intent itself is still there, by id, and in the chain
      expect(await ledger.get(intent.id)).to.deep.equal(intent);
      expect(await verify(ledger)).to.deep.equal({ ok: true, entries: 2 });
      const restarted = reopen();
      expect(await restarted.openIntents()).to.deep.equal([]);
      expect((await restarted.list({}, { limit: 10 })).entries.map((e) => e.id)).to.deep.equal([outcome.id]);
      // a second outcome for the same intent is refused and writes nothing
      const again = await rejection(restarted.append(aChangeRecord({ intentId: intent.id, outcome: { status: 'failed', message: 'x' } })));
      expect(again).to.be.instanceOf(ConflictError);
      expect((await restarted.chain()).head.seq).to.equal(2);
      // the chain covers the intent: what it says was about to be sent cannot be edited unnoticed
      const texts = await store.texts();
      expect(texts[0]).to.include('"replicas":3');
      await store.replace([texts[0].replace('"replicas":3', '"replicas":30'), texts[1]]);
      expect(await verify(reopen())).to.deep.include({ ok: false, firstBrokenId: intent.id });
    });

    it('refuses an outcome for an unknown intent or for an entry that is not one, and malformed intents, writing nothing', async () => {
      const change = await ledger.append(aChangeRecord());
      expect(await rejection(ledger.append(aChangeRecord({ intentId: 'chg_9_00000000' })))).to.be.instanceOf(ConflictError);
      expect(await rejection(ledger.append(aChangeRecord({ intentId: change.id })))).to.be.instanceOf(ConflictError);
      expect(await rejection(ledger.append(anIntentRecord({ outcome: { status: 'applied' } })))).to.be.instanceOf(ValidationError);
      expect(await rejection(ledger.append(aChangeRecord({ outcome: { status: 'pending' } })))).to.be.instanceOf(ValidationError);
      expect((await ledger.chain()).head.seq).to.equal(1);
      expect((await ledger.append(aChangeRecord())).seq).to.equal(2);
    });

    it('closes an intent once when ten outcomes for it are appended at the same moment', async () => {
      const intent = await ledger.append(anIntentRecord());
      const other = await ledger.append(anIntentRecord({ request: 'another write' }));
      const settled = await Promise.allSettled(Array.from({ length: 10 }, () => ledger.append(aChangeRecord({ intentId: intent.id }))));
      expect(settled.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      for (const r of settled) if (r.status === 'rejected') expect(r.reason).to.be.instanceOf(ConflictError);
      expect((await ledger.openIntents()).map((e) => e.id)).to.deep.equal([other.id]);
      expect(await verify(ledger)).to.deep.equal({ ok: true, entries: 3, openIntents: { count: 1, ids: [other.id] } });
    });

    it('answers the head apart from the entries: the last one appended, also after a restart', async () => {
      expect((await ledger.chain()).head).to.deep.equal(GENESIS_ANCHOR);
      await ledger.append(aChangeRecord());
      const last = await ledger.append(aChangeRecord({ request: 'second' }));
      expect((await ledger.chain()).head).to.deep.equal({ seq: 2, hash: last.hash });
      expect((await reopen().chain()).head).to.deep.equal({ seq: 2, hash: last.hash });
    });

    it('integrity finds the newest entry removed from the store, and the next entry keeps the gap visible', async () => {
      for (let i = 0; i < 3; i++) await ledger.append(aChangeRecord({ request: `r${i}` }));
      await store.cutNewest();
      expect((await store.texts()).length).to.equal(2);
      const report = await verify(ledger);
      expect(report).to.deep.include({ ok: false, entries: 2 });
      expect(report.problem).to.match(/svc appended up to position 3: the newest 1 entries were removed/);
      const restarted = reopen();
      expect(await verify(restarted)).to.deep.include({ ok: false, entries: 2 });
      const next = await restarted.append(aChangeRecord({ request: 'after the cut' }));
      expect(next.seq).to.equal(4);
      expect(await verify(reopen())).to.deep.include({ ok: false, entries: 3, firstBrokenId: next.id });
    });

    it('without a key, a chain rewritten with every later hash recomputed shows only through the head', async () => {
      for (let i = 0; i < 3; i++) await ledger.append(aChangeRecord({ request: `r${i}` }));
      const forged = forge(await store.texts(), 1, (e) => (e.request = 'nothing to see'));
      await store.replace(forged.texts);
      expect(await verify(reopen())).to.deep.include({ ok: false, entries: 3 });
      // the head rewritten too: the chain alone cannot tell (what SVC_LEDGER_KEY and an anchor kept elsewhere are for)
      await store.replace(forged.texts, forged.head);
      expect(await verify(reopen())).to.deep.equal({ ok: true, entries: 3 });
    });

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

    it('refuses to vouch for keyed entries when it has no key', async () => {
      const keyed = await factory(new FakeClock(), LEDGER_TEST_KEY);
      try {
        const e = await keyed.ledger.append(aChangeRecord());
        expect(await verify(keyed.ledger)).to.deep.include({ ok: false, firstBrokenId: e.id });
        expect((await verify(keyed.ledger)).problem).to.match(/sealed with a key \(HMAC\): set SVC_LEDGER_KEY/);
      } finally {
        await keyed.cleanup();
      }
    });

    it('with a key, each hash is an HMAC: an entry rewritten with every later hash and the head recomputed is found', async () => {
      const keyed = await factory(new FakeClock(), LEDGER_TEST_KEY);
      try {
        const made: ChangeEntry[] = [];
        for (let i = 0; i < 3; i++) made.push(await keyed.ledger.append(aChangeRecord({ request: `r${i}` })));
        expect(made[0]).to.include({ mac: 'hmac-sha256' });
        // an intent is sealed the same way
        const intent = await keyed.ledger.append(anIntentRecord());
        expect(intent).to.include({ mac: 'hmac-sha256' });
        expect(intent.hash).to.equal(entryHash(intent, LEDGER_TEST_KEY));
        made.push(await keyed.ledger.append(aChangeRecord({ request: 'r3', intentId: intent.id })));
        expect(made[0].hash).to.equal(entryHash(made[0], LEDGER_TEST_KEY)).and.not.equal(entryHash(made[0]));
        expect(await verify(keyed.reopen(), LEDGER_TEST_KEY)).to.deep.equal({ ok: true, entries: 5, keyed: true });
        expect(await verify(keyed.reopen(), 'another key of thirty-two characters')).to.deep.include({ ok: false, firstBrokenId: made[0].id });
        // the forger keeps the mark but cannot compute the HMAC
        const marked = forge(await keyed.store.texts(), 1, (e) => (e.request = 'nothing to see'));
        const remarked = marked.texts.map((t, i) => (i >= 1 ? t.replace('"prevHash"', '"mac":"hmac-sha256","prevHash"') : t));
        await keyed.store.replace(remarked, marked.head);
        expect(await verify(keyed.reopen(), LEDGER_TEST_KEY)).to.deep.include({ ok: false, firstBrokenId: made[1].id });
        // or drops the mark from the rewritten entries: after a keyed entry, that is a rewrite too
        await keyed.store.replace(marked.texts, marked.head);
        const report = await verify(keyed.reopen(), LEDGER_TEST_KEY);
        expect(report).to.deep.include({ ok: false, firstBrokenId: made[1].id });
        expect(report.problem).to.match(/not sealed with the key although an entry before it is/);
        // rewriting every entry without the key leaves them all counted as unkeyed, and the head it rewrote has no seal
        const all = forge(await keyed.store.texts(), 0, (e) => (e.request = 'nothing to see'));
        await keyed.store.replace(all.texts, all.head);
        const whole = await verify(keyed.reopen(), LEDGER_TEST_KEY);
        expect(whole).to.deep.include({ ok: false, entries: 5, keyed: true, unkeyed: 5 });
        expect(whole.problem).to.match(/head .*position 5.* carrying no seal/);
      } finally {
        await keyed.cleanup();
      }
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
