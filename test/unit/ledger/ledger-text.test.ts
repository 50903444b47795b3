import { expect } from 'chai';
import type { ChangeEntry } from '../../../domain/ledger/change-entry.js';
import { MAX_ENTRY_BYTES } from '../../../domain/ledger/change-entry.js';
import { entryFromText, entryText, recordFromText } from '../../../domain/ledger/ledger-text.js';
import { aChangeRecord } from '../../support/ledger-records.js';

const entry = (over: Partial<ChangeEntry> = {}): ChangeEntry => ({
  ...aChangeRecord({ rationale: 'line one\nline two' }),
  id: 'chg_12_0123abcd',
  seq: 12,
  at: '2026-12-03T07:00:00.000Z',
  prevHash: 'a'.repeat(64),
  hash: 'b'.repeat(64),
  ...over,
});

describe('ledger: an entry as stored text', () => {
  it('is one line of canonical JSON that reads back as the same entry', () => {
    const text = entryText(entry());
    expect(text).to.not.include('\n');
    expect(text.startsWith('{"approval":')).to.equal(true);
    expect(entryText({ ...entry() })).to.equal(text);
    expect(recordFromText(text, 'line 12')).to.deep.equal({ ok: true, entry: entry(), text });
    expect(entryFromText(text)).to.deep.equal(entry());
  });

  it('refuses an entry over the size limit before it is stored', () => {
    expect(() => entryText(entry({ rationale: 'x'.repeat(MAX_ENTRY_BYTES) }))).to.throw(/at most/);
  });

  it('a line cut short by a crash is broken, and names the id it carries', () => {
    const full = entryText(entry());
    const cut = full.slice(0, full.indexOf('"id":') + 30);
    expect(cut).to.include('"id":"chg_12_0123abcd"');
    const r = recordFromText(cut, 'line 12');
    expect(r).to.deep.equal({
      ok: false,
      problem: 'line 12 is not a complete entry (cut short by a crash during an append, or edited)',
      id: 'chg_12_0123abcd',
    });
    expect(entryFromText(cut)).to.equal(undefined);
  });

  const notEntries: [string, string][] = [
    ['null', 'null'],
    ['a list', '[1]'],
    ['an entry without its hash', JSON.stringify({ id: 'chg_1_0123abcd', seq: 1, prevHash: 'a' })],
    ['a seq as a string', JSON.stringify({ id: 'chg_1_0123abcd', seq: '1', hash: 'h', prevHash: 'a' })],
  ];
  for (const [name, text] of notEntries)
    it(`${name} is not a ledger entry`, () => {
      const r = recordFromText(text, 'line 3');
      expect(r.ok).to.equal(false);
      expect(r.ok ? '' : r.problem).to.equal('line 3 is not a ledger entry');
    });

  it("names only an id of the ledger's own form", () => {
    const r = recordFromText('{"id":"chg_1_zzzz"', 'line 1');
    expect(r).to.deep.equal({ ok: false, problem: 'line 1 is not a complete entry (cut short by a crash during an append, or edited)' });
  });
});
