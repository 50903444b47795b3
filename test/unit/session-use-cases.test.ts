import { expect } from 'chai';
import { GetSession } from '../../application/sessions/get-session.js';
import { ListSessions, MAX_SESSION_PAGE } from '../../application/sessions/list-sessions.js';
import { actorIn, callerIn, ownedBy, planUnderApproval, requireSessionRead } from '../../application/sessions/session-access.js';
import { ANONYMOUS_CALLER, identityId, rolesUpTo, type Caller, type Role } from '../../domain/auth/caller.js';
import { NO_SECOND_APPROVER } from '../../domain/auth/session-owner.js';
import type { DomainError } from '../../domain/errors.js';
import { MAX_SESSIONS_EXAMINED } from '../../domain/ports/session-store.js';
import { collectSessionPage, inOrder } from '../../domain/sessions/session-page.js';
import type { Session } from '../../domain/sessions/session.js';
import { operateOnFakes, planJson, scaleWeb } from '../support/operate-fixtures.js';
import { rejection } from '../support/rejection.js';

const person = (name: string, role: Role): Caller => ({
  id: identityId('tokens-file', 'svc', name),
  username: name,
  groups: [],
  roles: rolesUpTo(role),
  kind: 'tokens-file',
});
const ALICE = person('alice', 'operator');
const BOB = person('bob', 'operator');
const VIEWER = person('val', 'viewer');
const ROOT = person('root', 'admin');
const ctx = (caller: Caller) => ({ requestId: 'req-1', caller });

/** Three operation sessions, two by alice and one by bob, a minute apart; alice's second is stopped. */
async function setup() {
  const { clock, sessions, operate } = operateOnFakes([1, 2, 3].flatMap(() => ['ok', planJson([scaleWeb(5)])]));
  const a1 = await operate.execute({ intent: 'scale web to 5' }, ctx(ALICE));
  clock.advance(60_000);
  const b1 = await operate.execute({ intent: 'scale api to 5' }, ctx(BOB));
  clock.advance(60_000);
  const a2 = await operate.execute({ intent: 'scale db to 5' }, ctx(ALICE));
  await operate.execute({ sessionId: a2.sessionId, executeChoice: 2 }, ctx(ALICE));
  return { sessions, ids: { a1: a1.sessionId, b1: b1.sessionId, a2: a2.sessionId } };
}

describe('the session use cases (application/sessions/get-session.ts, list-sessions.ts, session-access.ts)', () => {
  it('GetSession: the starter and an admin read; someone else gets 403 naming the owner; unknown and malformed ids are 404', async () => {
    const { sessions, ids } = await setup();
    const get = new GetSession(sessions);
    const mine = await get.execute(ids.a1, ALICE);
    expect(mine).to.deep.include({ sessionId: ids.a1, kind: 'operation', tool: 'operate', status: 'awaiting_approval', subject: 'scale web to 5' });
    expect(mine.view).to.have.property('sessionId', ids.a1);
    expect((await get.execute(ids.a1, ROOT)).sessionId).to.equal(ids.a1);
    const other = await rejection<DomainError>(get.execute(ids.a1, BOB));
    expect(other.code).to.equal('FORBIDDEN');
    expect(other.message).to.equal(`Session ${ids.a1} was started by alice (tokens-file); only they or an admin may read it`);
    const unknown = await rejection<DomainError>(get.execute(`opr_${'0'.repeat(32)}`, ROOT));
    expect([unknown.code, unknown.message]).to.deep.equal(['NOT_FOUND', `No session opr_${'0'.repeat(32)}: it is unknown or expired`]);
    const malformed = await rejection<DomainError>(get.execute('../../etc/passwd', ROOT));
    expect([malformed.code, malformed.message]).to.deep.equal(['NOT_FOUND', 'No session (malformed id): it is unknown or expired']);
  });

  it('GetSession: with the second-approver rule an operator may read (to approve), a viewer may not', async () => {
    const { sessions, ids } = await setup();
    const get = new GetSession(sessions, { requireSecondApprover: true, protectedNamespaces: [] });
    expect((await get.execute(ids.a1, BOB)).status).to.equal('awaiting_approval');
    expect((await rejection<DomainError>(get.execute(ids.a1, VIEWER))).code).to.equal('FORBIDDEN');
  });

  it('ListSessions: the caller`s own newest first (an admin`s: everyone`s), filtered by tool and status, paged by an opaque cursor', async () => {
    const { sessions, ids } = await setup();
    const list = new ListSessions(sessions);
    expect((await list.execute({ caller: ALICE })).sessions.map((s) => s.sessionId)).to.deep.equal([ids.a2, ids.a1]);
    expect((await list.execute({ caller: BOB })).sessions.map((s) => s.sessionId)).to.deep.equal([ids.b1]);
    expect((await list.execute({ caller: ROOT })).sessions.map((s) => s.sessionId)).to.deep.equal([ids.a2, ids.b1, ids.a1]);
    expect((await list.execute({ caller: ALICE, status: 'stopped' })).sessions.map((s) => s.sessionId)).to.deep.equal([ids.a2]);
    expect((await list.execute({ caller: ALICE, tool: 'remediate' })).sessions).to.deep.equal([]);
    const first = await list.execute({ caller: ROOT, limit: 2 });
    expect(first.sessions.map((s) => s.sessionId)).to.deep.equal([ids.a2, ids.b1]);
    const second = await list.execute({ caller: ROOT, limit: 2, cursor: first.nextCursor });
    expect(second.sessions.map((s) => s.sessionId)).to.deep.equal([ids.a1]);
    expect(second.nextCursor).to.equal(undefined);
  });

  const badFilters: [string, Record<string, unknown>, string][] = [
    ['tool', { tool: 'deploy' }, 'tool must be one of remediate, operate, recommend'],
    ['status', { status: 'done' }, 'status must be one of '],
    ['limit', { limit: 0 }, `limit must be an integer from 1 to ${MAX_SESSION_PAGE}`],
    ['limit', { limit: MAX_SESSION_PAGE + 1 }, `limit must be an integer from 1 to ${MAX_SESSION_PAGE}`],
    ['limit', { limit: 1.5 }, `limit must be an integer from 1 to ${MAX_SESSION_PAGE}`],
    ['cursor', { cursor: 'bm90LWEtY3Vyc29y' }, 'cursor is not one svc gave: pass nextCursor from the previous page unchanged'],
  ];
  for (const [field, filter, message] of badFilters)
    it(`ListSessions: a bad ${field} (${JSON.stringify(filter)}) is a 400 naming the field, before the store is read`, async () => {
      const { sessions } = await setup();
      sessions.failNextWith = new Error('the store must not be read');
      const err = await rejection<DomainError>(new ListSessions(sessions).execute({ caller: ROOT, ...filter }));
      expect(err.code).to.equal('VALIDATION_ERROR');
      expect(err.message.startsWith(message), err.message).to.equal(true);
      expect(err.details).to.deep.equal({ field });
    });

  it('session-access: a run without a context acts as the anonymous admin; a new session is owned by its caller; actorIn carries the rule', () => {
    expect(callerIn(undefined)).to.equal(ANONYMOUS_CALLER);
    expect(callerIn(ctx(ALICE))).to.equal(ALICE);
    expect(ownedBy(ctx(ALICE))).to.deep.equal({ owner: { id: ALICE.id, username: 'alice', kind: 'tokens-file' } });
    expect(actorIn(undefined, undefined)).to.deep.equal({ caller: ANONYMOUS_CALLER, policy: NO_SECOND_APPROVER });
    const rule = { requireSecondApprover: true, protectedNamespaces: ['prod'] };
    expect(actorIn(ctx(BOB), rule)).to.deep.equal({ caller: BOB, policy: rule });
    expect(
      planUnderApproval('sha256:x', [
        { risk: 'low', target: { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'prod' } },
        { risk: 'high', target: { apiVersion: 'v1', kind: 'Namespace', name: 'b' } },
      ]),
    ).to.deep.equal({ planDigest: 'sha256:x', risks: ['low', 'high'], namespaces: ['prod', undefined] });
    const session = { id: 'opr_1', state: { owner: { id: ALICE.id, username: 'alice', kind: 'tokens-file' as const } } } as Session<never>;
    expect(() => requireSessionRead(session, undefined, ctx(ALICE))).not.to.throw();
    expect(() => requireSessionRead(session, undefined, ctx(BOB))).to.throw(/only they or an admin may read it/);
    expect(() => requireSessionRead(session, rule, ctx(BOB))).not.to.throw();
  });
});

describe('collectSessionPage (domain/sessions/session-page.ts): one page for every store adapter', () => {
  const at = (i: number) => ({ createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), id: `opr_${i.toString(16).padStart(32, '0')}` });
  const session = (i: number) =>
    ({ id: at(i).id, kind: 'operation', createdAt: Date.parse(at(i).createdAt), state: { n: i } }) as unknown as Session<{ n: number }>;

  it('skips stale entries and other kinds, filters by match, and says where the next page starts', async () => {
    const positions = [1, 2, 3, 4, 5, 6].map(at).concat([{ createdAt: at(7).createdAt, id: `rem_${'7'.repeat(32)}` }]);
    const page = await collectSessionPage(
      inOrder(positions),
      async (ids) => ids.map((id) => (id === at(5).id ? undefined : session(parseInt(id.slice(4), 16)))),
      {
        kinds: ['operation'],
        limit: 2,
        match: (s) => s.state.n !== 4,
      },
    );
    expect(page.sessions.map((s) => s.state.n)).to.deep.equal([6, 3]);
    expect(page.next).to.deep.equal(at(3));
    const rest = await collectSessionPage(inOrder(positions), async (ids) => ids.map((id) => session(parseInt(id.slice(4), 16))), {
      kinds: ['operation'],
      limit: 10,
      after: page.next,
    });
    expect(rest.sessions.map((s) => s.state.n)).to.deep.equal([2, 1]);
    expect(rest.next).to.equal(undefined);
  });

  it(`examines at most ${MAX_SESSIONS_EXAMINED} records, then answers what it found with where it stopped`, async () => {
    const positions = Array.from({ length: MAX_SESSIONS_EXAMINED + 50 }, (_, i) => at(i + 1));
    let loaded = 0;
    const page = await collectSessionPage(
      inOrder(positions),
      async (ids) => {
        loaded += ids.length;
        return ids.map((id) => session(parseInt(id.slice(4), 16)));
      },
      { limit: 5, match: () => false },
    );
    expect(loaded).to.equal(MAX_SESSIONS_EXAMINED);
    expect(page.sessions).to.deep.equal([]);
    expect(page.next).to.deep.equal(at(51));
  });
});
