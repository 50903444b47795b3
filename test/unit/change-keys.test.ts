import { expect } from 'chai';
import { MAX_ENTRY_BYTES } from '../../domain/ledger/change-entry.js';
import { checkedEntryText, matchesFilter, newEntryId, seqOfId, type ChangeKeys } from '../../domain/ledger/change-keys.js';

const KEYS: ChangeKeys = {
  seq: 7,
  id: 'chg_7_0123abcd',
  atMs: Date.parse('2026-12-02T10:00:00.000Z'),
  caller: 'alice',
  namespace: 'x',
  kind: 'Deployment',
  name: 'web',
  tool: 'operate',
  sessionId: `opr_${'a'.repeat(32)}`,
  outcome: 'applied',
  type: 'change',
};

describe('the change ledger`s index keys (domain/ledger/change-keys.ts)', () => {
  const filters: [string, Record<string, unknown>, boolean][] = [
    ['no filter', {}, true],
    ['every field that matches', { caller: 'alice', namespace: 'x', kind: 'Deployment', name: 'web', tool: 'operate', sessionId: KEYS.sessionId }, true],
    ['since, inclusive', { since: KEYS.atMs }, true],
    ['since, after it', { since: KEYS.atMs + 1 }, false],
    ['until, inclusive', { until: KEYS.atMs }, true],
    ['until, before it', { until: KEYS.atMs - 1 }, false],
    ['another caller', { caller: 'bob' }, false],
    ['another namespace', { namespace: 'y' }, false],
    ['another tool', { tool: 'remediate' }, false],
    ['a revert of something', { revertOf: 'chg_1_00000000' }, false],
    ['an intent it does not close', { intentId: 'chg_2_00000000' }, false],
    ['another outcome', { outcome: 'failed' }, false],
    ['its type', { type: 'change' }, true],
    ['another type', { type: 'verdict' }, false],
    ['the verdicts on some change', { verdictOf: 'chg_3_00000000' }, false],
  ];
  for (const [name, filter, match] of filters)
    it(`${name}: ${match ? 'matches' : 'does not match'}`, () => {
      expect(matchesFilter(KEYS, filter as never)).to.equal(match);
    });

  it('reads the seq of a well-formed id only', () => {
    expect(seqOfId(newEntryId(42, 'deadbeef'))).to.equal(42);
    for (const bad of ['chg_0_deadbeef', 'chg_42_DEADBEEF', 'chg_42_deadbee', 'chg_01_deadbeef', 'xyz_42_deadbeef', `chg_${'9'.repeat(17)}_deadbeef`])
      expect(seqOfId(bad), bad).to.equal(undefined);
  });

  it(`refuses an entry over ${MAX_ENTRY_BYTES} bytes before any write, counting bytes, not characters`, () => {
    expect(checkedEntryText('x'.repeat(MAX_ENTRY_BYTES))).to.have.length(MAX_ENTRY_BYTES);
    const multiByte = 'é'.repeat(Math.floor(MAX_ENTRY_BYTES / 2) + 1);
    expect(() => checkedEntryText(multiByte)).to.throw(`A ledger entry may be at most ${MAX_ENTRY_BYTES} bytes; this one is ${Buffer.byteLength(multiByte)}`);
  });
});
