import { expect } from 'chai';
import { MAX_SESSIONS_EXAMINED, type SessionStore } from '../../domain/ports/session-store.js';
import type { Session } from '../../domain/sessions/session.js';
import { FakeClock } from '../support/fake-clock.js';

/** The TTL every factory must give its store, so the suite knows when a session expires. */
export const CONTRACT_TTL_MS = 60 * 60 * 1000;

/** Builds a fresh, empty store on `clock` with CONTRACT_TTL_MS; `cleanup` releases it. */
export type SessionStoreFactory = (clock: FakeClock) => Promise<{ store: SessionStore; cleanup: () => Promise<void> }>;

interface Plan {
  step: string;
  answers: Record<string, unknown>;
}
const plan = (step: string, answers: Record<string, unknown> = {}): Plan => ({ step, answers });

/**
 * The behaviour every SessionStore adapter shares (the port's JSDoc), run
 * against the file store and the unit-test fake, so both behave alike.
 */
export function sessionStoreContract(name: string, factory: SessionStoreFactory): void {
  describe(`SessionStore contract: ${name}`, () => {
    let clock: FakeClock;
    let store: SessionStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      clock = new FakeClock();
      ({ store, cleanup } = await factory(clock));
    });
    afterEach(async () => cleanup());

    it('creates a session at revision 1 expiring one TTL from now, and reads it back', async () => {
      const created = await store.create('solution', plan('choose', { replicas: 3 }));
      const now = clock.now();
      expect(created).to.deep.include({ kind: 'solution', createdAt: now, updatedAt: now, expiresAt: now + CONTRACT_TTL_MS, revision: 1 });
      expect(created.state).to.deep.equal(plan('choose', { replicas: 3 }));
      expect(await store.get('solution', created.id)).to.deep.equal(created);
    });

    it('copies state in and out: neither the caller nor a reader can change what is stored', async () => {
      const state = plan('choose', { list: [1, 2] });
      const created = await store.create('operation', state);
      state.answers.list = ['mutated'];
      created.state.step = 'mutated';
      const read = (await store.get<Plan>('operation', created.id))!;
      expect(read.state).to.deep.equal(plan('choose', { list: [1, 2] }));
      read.state.answers.extra = true;
      expect((await store.get<Plan>('operation', created.id))!.state).to.deep.equal(plan('choose', { list: [1, 2] }));
    });

    it('gives ids with the kind prefix and 32 hex digits, unique over 1000 creates', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 10; i++) {
        const batch = await Promise.all(Array.from({ length: 100 }, () => store.create('remediation', {})));
        for (const s of batch) ids.add(s.id);
      }
      expect(ids.size).to.equal(1000);
      for (const id of ids) expect(id).to.match(/^rem_[0-9a-f]{32}$/);
      expect((await store.create('operation', {})).id).to.match(/^opr_[0-9a-f]{32}$/);
      expect((await store.create('solution', {})).id).to.match(/^sol_[0-9a-f]{32}$/);
    });

    it('answers undefined for a malformed, unknown or other-kind id', async () => {
      const created = await store.create('remediation', plan('investigate'));
      for (const id of [
        '',
        'rem_',
        'rem_XYZ',
        `${created.id}0`,
        created.id.toUpperCase(),
        '../../etc/passwd',
        'rem_../x',
        '/etc/passwd',
        'rem_' + '0'.repeat(32),
      ]) {
        expect(await store.get('remediation', id), id).to.equal(undefined);
      }
      expect(await store.get('operation', created.id)).to.equal(undefined);
      expect(await store.get('operation', created.id.replace('rem_', 'opr_'))).to.equal(undefined);
    });

    it('keeps a session up to its expiresAt and forgets it after', async () => {
      const created = await store.create('solution', plan('choose'));
      clock.advance(CONTRACT_TTL_MS);
      expect((await store.get('solution', created.id))?.revision).to.equal(1);
      clock.advance(1);
      expect(await store.get('solution', created.id)).to.equal(undefined);
      expect(await store.get('solution', created.id)).to.equal(undefined);
    });

    it('updates against the current revision: revision + 1, new state, expiry renewed', async () => {
      const created = await store.create('operation', plan('analyse'));
      clock.advance(CONTRACT_TTL_MS / 2);
      const result = await store.update('operation', created.id, 1, plan('approve', { ok: true }));
      const now = clock.now();
      expect(result).to.deep.equal({
        conflict: false,
        session: {
          id: created.id,
          kind: 'operation',
          createdAt: created.createdAt,
          updatedAt: now,
          expiresAt: now + CONTRACT_TTL_MS,
          revision: 2,
          state: plan('approve', { ok: true }),
        },
      });
      clock.advance(CONTRACT_TTL_MS * 0.75);
      expect(await store.get('operation', created.id)).to.deep.equal(result.conflict ? undefined : result.session);
    });

    it('answers a stale revision with a conflict carrying the current session, unchanged', async () => {
      const created = await store.create('operation', plan('analyse'));
      const second = await store.update('operation', created.id, 1, plan('dry-run'));
      const stale = await store.update('operation', created.id, 1, plan('lost'));
      expect(stale).to.deep.equal({ conflict: true, current: second.conflict ? undefined : second.session });
      expect((await store.update('operation', created.id, 7, plan('lost'))).conflict).to.equal(true);
      expect((await store.get<Plan>('operation', created.id))?.state.step).to.equal('dry-run');
    });

    it('lets exactly one of 20 concurrent updates with the same revision win', async () => {
      const created = await store.create('remediation', plan('investigate'));
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.update('remediation', created.id, 1, plan(`fix-${i}`))));
      const wins = results.filter((r) => !r.conflict);
      expect(wins).to.have.length(1);
      const winner = (wins[0] as { session: Session<Plan> }).session;
      expect(winner.revision).to.equal(2);
      for (const r of results.filter((x) => x.conflict)) expect(r).to.deep.equal({ conflict: true, current: winner });
      expect(await store.get('remediation', created.id)).to.deep.equal(winner);
    });

    it('answers an update of an unknown, malformed or expired session with a conflict and no current', async () => {
      const none = { conflict: true, current: undefined };
      expect(await store.update('solution', 'sol_' + 'a'.repeat(32), 1, {})).to.deep.equal(none);
      expect(await store.update('solution', '../../etc/passwd', 1, {})).to.deep.equal(none);
      const created = await store.create('solution', plan('choose'));
      expect(await store.update('remediation', created.id, 1, {})).to.deep.equal(none);
      clock.advance(CONTRACT_TTL_MS + 1);
      expect(await store.update('solution', created.id, 1, plan('late'))).to.deep.equal(none);
      expect(await store.get('solution', created.id)).to.equal(undefined);
    });

    it('stores states as JSON: a Date becomes its ISO string and undefined keys are dropped', async () => {
      const at = new Date(Date.UTC(2026, 4, 1));
      const created = await store.create('solution', { at, gone: undefined, list: [undefined, 1], nested: { n: null } });
      const expected = { at: at.toISOString(), list: [null, 1], nested: { n: null } };
      expect(created.state).to.deep.equal(expected);
      expect((await store.get('solution', created.id))?.state).to.deep.equal(expected);
      const updated = await store.update('solution', created.id, 1, { at, gone: undefined });
      expect(updated.conflict ? undefined : updated.session.state).to.deep.equal({ at: at.toISOString() });
    });

    it('lists live sessions newest first across kinds, a page at a time, each as get answers it', async () => {
      const made: Session<Plan>[] = [];
      for (const kind of ['remediation', 'operation', 'solution', 'remediation', 'solution'] as const) {
        made.push(await store.create(kind, plan(kind)));
        clock.advance(1000);
      }
      // two at the same instant: the id breaks the tie, newest-first order stays total
      const twins = [await store.create('operation', plan('twin')), await store.create('operation', plan('twin'))];
      const all = [...made, ...twins].sort((a, b) => b.createdAt - a.createdAt || (b.id < a.id ? -1 : 1));
      const first = await store.list<Plan>({ limit: 3 });
      expect(first.sessions).to.deep.equal(all.slice(0, 3));
      expect(first.next).to.deep.equal({ createdAt: new Date(all[2].createdAt).toISOString(), id: all[2].id });
      const second = await store.list<Plan>({ limit: 3, after: first.next });
      expect(second.sessions).to.deep.equal(all.slice(3, 6));
      const last = await store.list<Plan>({ limit: 3, after: second.next });
      expect(last.sessions).to.deep.equal(all.slice(6));
      expect(last.next).to.equal(undefined);
      expect((await store.list({ limit: 100 })).sessions).to.have.length(7);
      for (const s of first.sessions) expect(await store.get(s.kind, s.id)).to.deep.equal(s);
    });

    it('lists only the kinds asked for and what match accepts; an updated session keeps its place with its new state', async () => {
      const a = await store.create('remediation', plan('a'));
      clock.advance(1);
      const b = await store.create('operation', plan('b'));
      clock.advance(1);
      const c = await store.create('remediation', plan('c'));
      clock.advance(1);
      const updated = await store.update('remediation', a.id, 1, plan('a2'));
      const remediations = await store.list<Plan>({ kinds: ['remediation'], limit: 10 });
      expect(remediations.sessions.map((s) => s.id)).to.deep.equal([c.id, a.id]);
      expect(remediations.sessions[1]).to.deep.equal(updated.conflict ? undefined : updated.session);
      const matched = await store.list<Plan>({ limit: 10, match: (s) => s.state.step !== 'c' });
      expect(matched.sessions.map((s) => s.id)).to.deep.equal([b.id, a.id]);
      expect((await store.list({ kinds: ['solution'], limit: 10 })).sessions).to.deep.equal([]);
    });

    it('never lists an expired session, and lists a renewed one past its first expiry', async () => {
      const old = await store.create('solution', plan('old'));
      const kept = await store.create('solution', plan('kept'));
      clock.advance(CONTRACT_TTL_MS / 2);
      await store.update('solution', kept.id, 1, plan('kept2'));
      clock.advance(CONTRACT_TTL_MS / 2 + 1);
      const fresh = await store.create('operation', plan('fresh'));
      const listed = await store.list<Plan>({ limit: 10 });
      expect(listed.sessions.map((s) => s.id)).to.deep.equal([fresh.id, kept.id]);
      expect(await store.get('solution', old.id)).to.equal(undefined);
    });

    it(`examines at most ${MAX_SESSIONS_EXAMINED} records per page: a short page with a next, and the rest after it`, async () => {
      for (let i = 0; i < MAX_SESSIONS_EXAMINED + 5; i += 100) {
        await Promise.all(Array.from({ length: Math.min(100, MAX_SESSIONS_EXAMINED + 5 - i) }, () => store.create('remediation', plan('x'))));
        clock.advance(1);
      }
      const first = await store.list<Plan>({ limit: 10, match: (s) => s.state.step === 'none' });
      expect(first.sessions).to.deep.equal([]);
      expect(first.next).to.not.equal(undefined);
      const rest = await store.list<Plan>({ limit: 10, after: first.next });
      expect(rest.sessions).to.have.length(5);
      expect(rest.next).to.equal(undefined);
    });
  });
}
