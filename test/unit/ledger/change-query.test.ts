import { expect } from 'chai';
import { CHANGE_QUERY, changeQueryFromFlags, DEFAULT_LIMIT, encodeCursor, MAX_LIMIT, parseChangeQuery } from '../../../application/ledger/change-query.js';
import { ValidationError } from '../../../domain/errors.js';

const refused = (q: Parameters<typeof parseChangeQuery>[0]): string => {
  try {
    parseChangeQuery(q);
  } catch (e) {
    expect(e).to.be.instanceOf(ValidationError);
    return (e as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(q)}`);
};

describe('application/ledger/change-query: the query of GET /api/v1/changes, checked before any read', () => {
  it('takes every filter, a page and a cursor given back unchanged', () => {
    // the text filters come back as given; the times as epoch milliseconds
    const texts = { caller: 'alice', namespace: 'shop', kind: 'Deployment', name: 'web', tool: 'operate', sessionId: 'opr_1', cluster: 'prod' };
    const kinds = { outcome: 'applied', type: 'change' };
    const { filter, page } = parseChangeQuery({
      since: '2026-12-01',
      until: '2026-12-02T10:00:00Z',
      ...texts,
      ...kinds,
      limit: '20',
      cursor: encodeCursor(42),
    });
    expect(filter).to.deep.equal({ since: Date.parse('2026-12-01'), until: Date.parse('2026-12-02T10:00:00Z'), ...texts, ...kinds });
    expect(page).to.deep.equal({ limit: 20, beforeSeq: 42 });
  });

  it('pages by the default limit with no cursor when none is given', () => {
    expect(parseChangeQuery({}).page).to.deep.equal({ limit: DEFAULT_LIMIT });
    expect(parseChangeQuery({ limit: MAX_LIMIT }).page.limit).to.equal(MAX_LIMIT);
  });

  const bad: [string, Parameters<typeof parseChangeQuery>[0], string][] = [
    ['a limit past the cap', { limit: MAX_LIMIT + 1 }, 'Invalid limit'],
    ['a limit of 0', { limit: 0 }, 'Invalid limit'],
    ['a limit that is not a whole number', { limit: '1.5' }, 'Invalid limit'],
    ['a limit with trailing text', { limit: '10; drop' }, 'Invalid limit'],
    ['an unknown outcome', { outcome: 'done' }, 'Invalid outcome'],
    ['an unknown type', { type: 'write' }, 'Invalid type'],
    ['a time that is not ISO 8601', { since: 'yesterday' }, 'Invalid since'],
    ['a date that does not exist', { until: '2026-13-45' }, 'Invalid until'],
    ['since after until', { since: '2026-12-02', until: '2026-12-01' }, 'since is after until'],
    ['an empty name', { name: '' }, 'Invalid name'],
    ['an overlong namespace', { namespace: 'n'.repeat(254) }, 'Invalid namespace'],
    ['an empty cluster', { cluster: '' }, 'Invalid cluster'],
    ['a forged cursor', { cursor: Buffer.from(JSON.stringify({ b: -1 })).toString('base64url') }, 'Invalid cursor'],
    ['a cursor that is not one', { cursor: '!!!' }, 'Invalid cursor'],
  ];
  for (const [name, query, message] of bad) it(`refuses ${name}`, () => expect(refused(query)).to.contain(message));

  it('reads the CLI flags by their flag names into the query names, leaving out the unset ones', () => {
    expect(changeQueryFromFlags({ session: 'opr_1', limit: '5', kind: undefined, other: 'x' })).to.deep.equal({ sessionId: 'opr_1', limit: '5' });
    // every parameter has a flag and help of its own
    expect(new Set(CHANGE_QUERY.map((q) => q.flag)).size).to.equal(CHANGE_QUERY.length);
  });
});
