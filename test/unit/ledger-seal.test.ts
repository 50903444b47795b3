import { expect } from 'chai';
import { GENESIS_ANCHOR, sealEntry, verifyChain, type StoredRecord } from '../../domain/ledger/hash-chain.js';
import { anchorProblem, flawOfHead, sealAnchor, sealHead, storedHeadOf } from '../../domain/ledger/ledger-seal.js';
import { aChangeRecord } from '../support/ledger-records.js';

const KEY = 'k'.repeat(40);
const OTHER = 'o'.repeat(40);
const HASH = 'c'.repeat(64);

async function* recordsOf(n: number, key?: string): AsyncGenerator<StoredRecord> {
  let prev = GENESIS_ANCHOR;
  for (let seq = 1; seq <= n; seq++) {
    const entry = sealEntry(aChangeRecord({ request: `r${seq}` }), { seq, prevHash: prev.hash, atMs: 0, random8Hex: '0000000' + seq }, key);
    prev = entry;
    yield { ok: true, entry };
  }
}

describe('ledger seals (head and anchor)', () => {
  it('a seal stands for its own kind and fields only: a head seal is no anchor seal, and changing any field breaks it', () => {
    const head = sealHead({ seq: 3, hash: HASH }, KEY);
    const anchor = sealAnchor({ seq: 3, hash: HASH }, KEY);
    expect(head.mac).to.match(/^[0-9a-f]{64}$/);
    expect(head.mac).to.not.equal(anchor.mac);
    expect(flawOfHead(head, { key: KEY })).to.equal(undefined);
    expect(anchorProblem(anchor, { key: KEY })).to.equal(undefined);
    expect(anchorProblem({ ...anchor, mac: head.mac }, { key: KEY })).to.match(/has a seal that SVC_LEDGER_KEY does not make/);
    expect(flawOfHead({ ...head, mac: anchor.mac }, { key: KEY })).to.include({ found: 'wrong-seal' });
    expect(flawOfHead({ ...head, seq: 2 }, { key: KEY })).to.include({ found: 'wrong-seal', seq: 2 });
    expect(flawOfHead(sealHead({ seq: 3, hash: HASH }, OTHER), { key: KEY })).to.include({ found: 'wrong-seal' });
    expect(flawOfHead(sealHead({ seq: 3, hash: HASH }, OTHER), { key: KEY, previousKey: OTHER })).to.equal(undefined);
    // without a key nothing is sealed and nothing is judged; an empty ledger's head needs no seal
    expect(sealHead({ seq: 3, hash: HASH })).to.deep.equal({ seq: 3, hash: HASH });
    expect(flawOfHead({ seq: 3, hash: HASH }, {})).to.equal(undefined);
    expect(flawOfHead(GENESIS_ANCHOR, { key: KEY })).to.equal(undefined);
  });

  it('reads a stored head strictly: a malformed seal or flaw leaves it unsealed, a malformed position is no head', () => {
    const sealed = sealHead({ seq: 3, hash: HASH, flaw: { seq: 2, hash: HASH, found: 'unsealed', at: '2026-01-01T00:00:00.000Z' } }, KEY);
    expect(storedHeadOf(sealed)).to.deep.equal(sealed);
    expect(storedHeadOf({ ...sealed, flaw: { ...sealed.flaw, found: 'whatever' } })).to.deep.equal({ seq: 3, hash: HASH });
    expect(storedHeadOf({ ...sealed, flaw: { ...sealed.flaw, at: 'x'.repeat(41) } })).to.deep.equal({ seq: 3, hash: HASH });
    expect(storedHeadOf({ ...sealed, mac: 'not hex' })).to.deep.equal({ seq: 3, hash: HASH, flaw: sealed.flaw });
    expect(storedHeadOf({ seq: -1, hash: HASH })).to.equal(undefined);
    expect(storedHeadOf({ seq: '3', hash: HASH })).to.equal(undefined);
    expect(storedHeadOf({ seq: 3, hash: 'short' })).to.equal(undefined);
  });

  it('a flaw carried in the head is reported until retention prunes past the entry appended after it', async () => {
    const flaw = { seq: 2, hash: HASH, found: 'unsealed' as const, at: '2026-01-01T00:00:00.000Z' };
    const records: StoredRecord[] = [];
    for await (const r of recordsOf(5, KEY)) records.push(r);
    const last = records.at(-1) as { entry: { seq: number; hash: string } };
    const head = sealHead({ seq: 5, hash: last.entry.hash, flaw }, KEY);
    const walk = async (from: number) => {
      const kept = records.slice(from);
      const before = from ? (records[from - 1] as { entry: { seq: number; hash: string } }).entry : GENESIS_ANCHOR;
      return verifyChain(
        (async function* () {
          yield* kept;
        })(),
        sealAnchor({ seq: before.seq, hash: before.hash }, KEY),
        { head, key: KEY },
      );
    };
    expect((await walk(0)).problem).to.match(/^svc found the head at position 2 on 2026-01-01T00:00:00.000Z carrying no seal/);
    expect(await walk(2)).to.deep.include({ ok: false });
    // the anchor at 3: the entry appended after the flaw is pruned, and so would anything it may have hidden be
    expect(await walk(3)).to.deep.include({ ok: true, entries: 2 });
  });
});
