import { expect } from 'chai';
import { decodeCursor, encodeCursor, isAfterPosition, newestFirst, type PagePosition } from '../../domain/paging/newest-first-cursor.js';
import { isAfterCursor, pageCursor, readCursor } from '../../domain/runs/run-cursor.js';
import { kindOfSessionId, readSessionCursor, sessionCursor, sessionPosition } from '../../domain/sessions/session-cursor.js';

const RUN = `run_${'a'.repeat(32)}`;
const OPR = `opr_${'b'.repeat(32)}`;
const REM = `rem_${'c'.repeat(32)}`;
const SOL = `sol_${'d'.repeat(32)}`;
const AT = '2026-12-02T10:00:00.000Z';
const any = () => true;

describe('newest-first paging cursors (domain/paging, domain/runs/run-cursor, domain/sessions/session-cursor)', () => {
  it('a cursor decodes to the position it encodes, and only for the list whose ids it holds', () => {
    const at: PagePosition = { createdAt: AT, id: OPR };
    const cursor = encodeCursor(at);
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, any)).to.deep.equal(at);
    expect(readSessionCursor(cursor)).to.deep.equal(at);
    // a session cursor is not a run cursor
    expect(readCursor(cursor)).to.equal(undefined);
    expect(readCursor(pageCursor({ createdAt: AT, runId: RUN }))).to.deep.equal({ createdAt: AT, id: RUN });
  });

  const refused: [string, string | undefined][] = [
    ['absent', undefined],
    ['empty', ''],
    ['not base64url', 'abc+/='],
    ['too long', 'A'.repeat(201)],
    ['no bar', Buffer.from(`${AT}${OPR}`).toString('base64url')],
    ['an instant without milliseconds', Buffer.from(`2026-12-02T10:00:00Z|${OPR}`).toString('base64url')],
    ['an impossible instant', Buffer.from(`2026-13-45T10:00:00.000Z|${OPR}`).toString('base64url')],
    ['an id of no session kind', Buffer.from(`${AT}|xyz_${'b'.repeat(32)}`).toString('base64url')],
    ['an id with a path in it', Buffer.from(`${AT}|../../etc/passwd`).toString('base64url')],
  ];
  for (const [what, cursor] of refused)
    it(`refuses a session cursor that is ${what}`, () => {
      expect(readSessionCursor(cursor)).to.equal(undefined);
    });

  it('refuses a cursor whose padding bits were altered (one spelling per position)', () => {
    const cursor = sessionCursor({ createdAt: AT, id: REM });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const altered = alphabet
      .split('')
      .map((c) => cursor.slice(0, -1) + c)
      .filter((c) => c !== cursor && Buffer.from(c, 'base64url').equals(Buffer.from(cursor, 'base64url')));
    expect(altered).to.not.be.empty;
    for (const c of altered) expect(readSessionCursor(c), c).to.equal(undefined);
  });

  it('orders newest first, the id breaking ties, and pages strictly after a position', () => {
    const items: PagePosition[] = [
      { createdAt: '2026-12-02T09:00:00.000Z', id: 'b' },
      { createdAt: AT, id: 'a' },
      { createdAt: AT, id: 'c' },
    ];
    expect([...items].sort(newestFirst).map((i) => i.id)).to.deep.equal(['c', 'a', 'b']);
    const after = { createdAt: AT, id: 'c' };
    expect(items.filter((i) => isAfterPosition(i, after)).map((i) => i.id)).to.deep.equal(['b', 'a']);
    expect(items.filter((i) => isAfterPosition(i, undefined))).to.have.length(3);
    expect(isAfterCursor({ createdAt: AT, runId: RUN }, { createdAt: AT, id: RUN })).to.equal(false);
    expect(isAfterCursor({ createdAt: '2026-12-01T10:00:00.000Z', runId: RUN }, { createdAt: AT, id: RUN })).to.equal(true);
  });

  it('reads the kind of a session from a well-formed id only', () => {
    expect([OPR, REM, SOL].map(kindOfSessionId)).to.deep.equal(['operation', 'remediation', 'solution']);
    for (const bad of [RUN, `opr_${'B'.repeat(32)}`, `opr_${'b'.repeat(31)}`, 42, undefined]) expect(kindOfSessionId(bad)).to.equal(undefined);
    expect(sessionPosition({ createdAt: Date.parse(AT), id: OPR })).to.deep.equal({ createdAt: AT, id: OPR });
  });
});
