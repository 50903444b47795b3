import { expect } from 'chai';
import { stopApprovalSession } from '../../application/sessions/stop-session.js';
import { identityId, rolesUpTo, type Caller, type Role } from '../../domain/auth/caller.js';
import { NO_SECOND_APPROVER, ownerOf, type ApprovalPolicy } from '../../domain/auth/session-owner.js';
import { ValidationError, type DomainError } from '../../domain/errors.js';
import {
  approve,
  approveAutomatically,
  approvePlan,
  claim,
  finish,
  phaseOf,
  refine,
  release,
  stop,
  type ApprovalPhase,
  type ApprovalSessionState,
  type Decision,
  type PlanUnderApproval,
  type Refusal,
  type RefusalReason,
} from '../../domain/sessions/approval-session.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { rejection } from '../support/rejection.js';

const AT = '2026-12-02T10:00:00.000Z';
const LATER = '2026-12-02T11:00:00.000Z';
const START = 'Start a new one.';
const ID = 'opr_0123456789abcdef0123456789abcdef';
type State = ApprovalSessionState<{ ok: boolean }> & { plan: string };

function caller(kind: Caller['kind'], issuer: string, subject: string, role: Role, over: Partial<Caller> = {}): Caller {
  return { id: identityId(kind, issuer, subject), username: subject, groups: [], roles: rolesUpTo(role), kind, ...over };
}

/** The callers a step is judged for, by their relation to the session's starter (alice, a tokens-file operator who is the person `alice`). */
const STARTER = caller('tokens-file', 'svc', 'alice', 'operator', { person: 'alice' });
const CALLERS = {
  starter: STARTER,
  /** the same person under another credential (an OIDC login the people file names alice) */
  'same person, other credential': caller('oidc', 'https://idp.example', 'a1b2', 'operator', { username: 'oidc:alice.smith', person: 'alice' }),
  /** another identity that only shares the name: never the owner (an identity is kind+issuer+subject), but not a second approver either */
  'same name, other identity': caller('oidc', 'https://idp.example', 'x9', 'operator', { username: 'oidc:alice' }),
  'another operator': caller('tokens-file', 'svc', 'bob', 'operator'),
  'an admin': caller('tokens-file', 'svc', 'root', 'admin'),
} as const;
type Relation = keyof typeof CALLERS;
const RELATIONS = Object.keys(CALLERS) as Relation[];
/** who may act on the session as its starter: the same identity or the same person, or an admin */
const ACTS_AS_STARTER: Relation[] = ['starter', 'same person, other credential', 'an admin'];

const OWNER = ownerOf(STARTER);
const RUNNING = { status: 'running' as const, startedAt: AT };
/** One stored state per phase of the lifecycle. */
const PHASES: [ApprovalPhase, State][] = [
  ['proposed', { owner: OWNER, plan: 'scale web' }],
  ['executing', { owner: OWNER, plan: 'scale web', execution: RUNNING }],
  ['executed', { owner: OWNER, plan: 'scale web', execution: { status: 'done', startedAt: AT, finishedAt: AT, outcome: { ok: true } } }],
  ['executed', { owner: OWNER, plan: 'scale web', execution: { status: 'failed', startedAt: AT, finishedAt: AT, error: 'the write was refused' } }],
  ['stopped', { owner: OWNER, plan: 'scale web', stopped: { at: AT } }],
];
const label = (phase: ApprovalPhase, state: State) => `${phase}${state.execution && phase === 'executed' ? ` (${state.execution.status})` : ''}`;

/** The status each refusal is answered with (interfaces/http/error-status.ts maps the code). */
const CODE_OF: Record<RefusalReason, string> = {
  not_owner: 'FORBIDDEN',
  closed: 'VALIDATION_ERROR',
  plan_changed: 'CONFLICT',
  second_approver_required: 'FORBIDDEN',
  digest_required: 'VALIDATION_ERROR',
  not_executing: 'VALIDATION_ERROR',
};

function refusalOf(d: object): Refusal {
  expect(d, JSON.stringify(d)).to.have.property('refused');
  const r = (d as { refused: Refusal }).refused;
  expect(r.error.code, r.reason).to.equal(CODE_OF[r.reason]);
  return r;
}

const CLOSED = {
  executing: /is being executed by another request; it cannot be (stopped|refined|executed again)/,
  executed: /was already executed \((done|failed) at .*\); a session executes at most once, it cannot be (stopped|refined|executed again)\. Start a new one\./,
  stopped: /was stopped at 2026-12-02T10:00:00.000Z; nothing was applied, it cannot be (stopped|refined|executed again)\. Start a new one\./,
};

function expectClosed(d: object, phase: ApprovalPhase, state: State): void {
  const r = refusalOf(d);
  expect(r.reason).to.equal('closed');
  expect(r.error.message).to.match(CLOSED[phase as keyof typeof CLOSED]);
  if (state.execution) expect(r.error.details).to.deep.equal({ execution: state.execution });
}

describe('the approval session aggregate (domain/sessions/approval-session.ts)', () => {
  it('reads each phase from the stored state', () => {
    for (const [phase, state] of PHASES) expect(phaseOf(state), JSON.stringify(state)).to.equal(phase);
  });

  describe('stop: who may (the starter by identity or person, or an admin), in which phase', () => {
    for (const relation of RELATIONS)
      for (const [phase, state] of PHASES) {
        const may = ACTS_AS_STARTER.includes(relation);
        const expected = !may ? 'not_owner' : phase === 'proposed' ? 'stopped' : phase === 'stopped' ? 'unchanged' : 'closed';
        it(`${relation}, ${label(phase, state)}: ${expected}`, () => {
          const d = stop(ID, state, { caller: CALLERS[relation] }, LATER, START);
          if (expected === 'stopped') expect(d).to.deep.equal({ next: { ...state, stopped: { at: LATER } } });
          else if (expected === 'unchanged') expect(d).to.deep.equal({ unchanged: state });
          else if (expected === 'closed') expectClosed(d, phase, state);
          else {
            const r = refusalOf(d);
            expect(r.reason).to.equal('not_owner');
            expect(r.error.message).to.equal(`Session ${ID} was started by alice (tokens-file); only they or an admin may continue it`);
          }
        });
      }
  });

  describe('refine: the starter or an admin, while proposed; the owner survives a replan', () => {
    for (const relation of RELATIONS)
      for (const [phase, state] of PHASES) {
        const may = ACTS_AS_STARTER.includes(relation);
        const expected = !may ? 'not_owner' : phase === 'proposed' ? 'replans' : 'closed';
        it(`${relation}, ${label(phase, state)}: ${expected}`, () => {
          const d = refine(ID, state, { caller: CALLERS[relation] }, START);
          if (expected === 'replans') {
            expect(d).to.have.property('replan');
            const replan = (d as { replan: (next: Omit<State, 'owner' | 'execution' | 'stopped'>) => State }).replan;
            // a new plan cannot bring its own owner: the starter stays
            expect(replan({ plan: 'scale web to 3', owner: ownerOf(CALLERS['another operator']) } as never)).to.deep.equal({
              owner: OWNER,
              plan: 'scale web to 3',
            });
          } else if (expected === 'closed') expectClosed(d, phase, state);
          else expect(refusalOf(d).reason).to.equal('not_owner');
        });
      }
  });

  describe('approve (executeChoice 1): the digest, who may, the second approver, then the phase', () => {
    const LOW: PlanUnderApproval = { planDigest: `sha256:${'a'.repeat(64)}`, risks: ['low'], namespaces: ['x'] };
    const HIGH: PlanUnderApproval = { planDigest: `sha256:${'b'.repeat(64)}`, risks: ['high'], namespaces: ['x'] };
    const SECOND: ApprovalPolicy = { requireSecondApprover: true, protectedNamespaces: ['prod'] };
    const PROTECTED: PlanUnderApproval = { planDigest: `sha256:${'c'.repeat(64)}`, risks: ['low'], namespaces: ['prod'] };
    type Expect = 'approved' | RefusalReason;
    const cases: { rule: string; policy: ApprovalPolicy; plan: PlanUnderApproval; digest: 'none' | 'right' | 'stale'; expect: Record<Relation, Expect> }[] = [
      {
        rule: 'no second approver, no digest sent',
        policy: NO_SECOND_APPROVER,
        plan: LOW,
        digest: 'none',
        expect: {
          starter: 'approved',
          'same person, other credential': 'approved',
          'same name, other identity': 'not_owner',
          'another operator': 'not_owner',
          'an admin': 'approved',
        },
      },
      {
        rule: 'a stale digest: 409 before anything else, for anyone',
        policy: SECOND,
        plan: HIGH,
        digest: 'stale',
        expect: {
          starter: 'plan_changed',
          'same person, other credential': 'plan_changed',
          'same name, other identity': 'plan_changed',
          'another operator': 'plan_changed',
          'an admin': 'plan_changed',
        },
      },
      {
        rule: 'second approver on, a high-risk plan, the digest sent',
        policy: SECOND,
        plan: HIGH,
        digest: 'right',
        expect: {
          starter: 'second_approver_required',
          'same person, other credential': 'second_approver_required',
          // the same name counts as the same person for the second-approver rule (never as the owner)
          'same name, other identity': 'second_approver_required',
          'another operator': 'approved',
          'an admin': 'approved',
        },
      },
      {
        rule: 'second approver on, a protected namespace, no digest sent',
        policy: SECOND,
        plan: PROTECTED,
        digest: 'none',
        expect: {
          starter: 'second_approver_required',
          'same person, other credential': 'second_approver_required',
          'same name, other identity': 'second_approver_required',
          'another operator': 'digest_required',
          'an admin': 'digest_required',
        },
      },
      {
        rule: 'second approver on, a plan that does not need one',
        policy: SECOND,
        plan: LOW,
        digest: 'right',
        expect: {
          starter: 'approved',
          'same person, other credential': 'approved',
          'same name, other identity': 'not_owner',
          'another operator': 'not_owner',
          'an admin': 'approved',
        },
      },
    ];
    for (const c of cases)
      for (const relation of RELATIONS)
        for (const [phase, state] of PHASES) {
          const rule = c.expect[relation];
          // who may is judged first; a caller who may gets the phase's answer
          const expected: Expect = rule === 'approved' && phase !== 'proposed' ? 'closed' : rule;
          it(`${c.rule}: ${relation}, ${label(phase, state)}: ${expected}`, () => {
            const sentDigest = c.digest === 'none' ? undefined : c.digest === 'right' ? c.plan.planDigest : `sha256:${'f'.repeat(64)}`;
            const d = approve(ID, state, { caller: CALLERS[relation], policy: c.policy, plan: c.plan, sentDigest }, START);
            if (expected === 'approved') expect(d).to.deep.equal({ approval: { by: ownerOf(CALLERS[relation]), planDigest: c.plan.planDigest } });
            else if (expected === 'closed') expectClosed(d, phase, state);
            else {
              const r = refusalOf(d);
              expect(r.reason).to.equal(expected);
              if (expected === 'plan_changed') expect(r.error.details).to.deep.equal({ planDigest: c.plan.planDigest });
              if (expected === 'second_approver_required') expect(r.error.details).to.deep.include({ secondApproverRequired: true, owner: 'alice' });
              if (expected === 'digest_required')
                expect(r.error.message).to.contain(`send the planDigest you reviewed (${c.plan.planDigest} now) with executeChoice 1`);
            }
          });
        }

    it('approvePlan (a deploy, a revert: no phases) throws the refusal approve would answer', () => {
      expect(() =>
        approvePlan({ sessionId: ID, state: { owner: OWNER }, plan: HIGH, caller: STARTER, policy: SECOND, subject: 'The revert of change c1' }),
      ).to.throw(/The revert of change c1 needs a second approver: it includes a high-risk action, and the change is alice \(tokens-file\)'s/);
      expect(approvePlan({ sessionId: ID, state: { owner: OWNER }, plan: LOW, caller: STARTER, policy: SECOND })).to.deep.equal({
        by: OWNER,
        planDigest: LOW.planDigest,
      });
    });
  });

  describe('approveAutomatically: the automatic rule approves for the starter, never as a second approver', () => {
    const plan = (risks: ('low' | 'medium' | 'high')[], namespaces: string[]): PlanUnderApproval => ({
      planDigest: `sha256:${'d'.repeat(64)}`,
      risks,
      namespaces,
    });
    const rows: [string, ApprovalPolicy, PlanUnderApproval, string | undefined][] = [
      ['rule off, a high-risk plan', NO_SECOND_APPROVER, plan(['high'], ['x']), undefined],
      ['rule on, a low-risk plan elsewhere', { requireSecondApprover: true, protectedNamespaces: ['prod'] }, plan(['low'], ['x']), undefined],
      ['rule on, a high-risk plan', { requireSecondApprover: true, protectedNamespaces: [] }, plan(['low', 'high'], ['x']), 'it includes a high-risk action'],
      [
        'rule on, a protected namespace',
        { requireSecondApprover: true, protectedNamespaces: ['prod'] },
        plan(['low'], ['prod']),
        'it writes into the protected namespace prod',
      ],
    ];
    for (const [name, policy, p, why] of rows)
      it(`${name}: ${why ? 'waits for a second approver' : "approved on the starter's behalf"}`, () => {
        expect(approveAutomatically(OWNER, p, policy)).to.deep.equal(why ? { secondApprover: why } : { approval: { by: OWNER, planDigest: p.planDigest } });
      });
  });

  describe('claim, finish, release: the one execution, by phase', () => {
    const approval = { by: ownerOf(CALLERS['another operator']), planDigest: `sha256:${'a'.repeat(64)}` };
    for (const [phase, state] of PHASES) {
      it(`claim, ${label(phase, state)}: ${phase === 'proposed' ? 'executing, with the approval' : 'closed'}`, () => {
        const d = claim(ID, state, LATER, approval, START);
        if (phase === 'proposed') expect(d).to.deep.equal({ next: { ...state, execution: { status: 'running', startedAt: LATER, approval } } });
        else expectClosed(d, phase, state);
      });
      it(`finish, ${label(phase, state)}: ${phase === 'executing' ? 'executed (done or failed)' : 'not_executing'}`, () => {
        const done = finish<State, { ok: boolean }>(ID, state, { outcome: { ok: true } }, LATER);
        const failed = finish<State, { ok: boolean }>(ID, state, { error: 'x'.repeat(1500) }, LATER);
        if (phase === 'executing') {
          expect(done).to.deep.equal({ next: { ...state, execution: { ...RUNNING, status: 'done', outcome: { ok: true }, finishedAt: LATER } } });
          // the stored error is bounded
          expect(failed).to.deep.equal({ next: { ...state, execution: { ...RUNNING, status: 'failed', error: 'x'.repeat(1000), finishedAt: LATER } } });
          expect(phaseOf((done as { next: State }).next)).to.equal('executed');
        } else {
          expect(refusalOf(done).reason).to.equal('not_executing');
          expect(refusalOf(failed).reason).to.equal('not_executing');
        }
      });
      it(`release, ${label(phase, state)}: ${phase === 'executing' ? 'proposed again' : 'not_executing'}`, () => {
        const d: Decision<State> = release(ID, state);
        if (phase === 'executing') {
          expect(d).to.deep.equal({ next: { owner: OWNER, plan: 'scale web' } });
          expect(phaseOf((d as { next: State }).next)).to.equal('proposed');
        } else expect(refusalOf(d).reason).to.equal('not_executing');
      });
    }
  });
});

describe('stopApprovalSession: the stop every session tool runs', () => {
  const setup = async (state: State) => {
    const store = new FakeSessionStore({ clock: new FakeClock() });
    const session = await store.create<State>('operation', state);
    return { store, session };
  };
  const now = new Date(LATER);
  const by = { caller: STARTER };

  it('stores the stopped state once; stopping again answers the same session, storing nothing', async () => {
    const { store, session } = await setup({ owner: OWNER, plan: 'scale web' });
    const first = await stopApprovalSession(store, 'operation', session, by, now, START);
    expect(first.state.stopped).to.deep.equal({ at: now.toISOString() });
    const again = await stopApprovalSession(store, 'operation', first, by, new Date('2026-12-02T12:00:00.000Z'), START);
    expect(again).to.deep.equal(first);
    expect((await store.get<State>('operation', session.id))!.revision).to.equal(first.revision);
  });

  it('a request that lost the race to another stop answers as if it stopped twice', async () => {
    const { store, session } = await setup({ owner: OWNER, plan: 'scale web' });
    const other = await stopApprovalSession(store, 'operation', session, by, now, START);
    // this request read the session before the other stored its stop
    const late = await stopApprovalSession(store, 'operation', session, by, new Date('2026-12-02T11:00:01.000Z'), START);
    expect(late).to.deep.equal(other);
  });

  it('a request that lost the race to an execution is refused with the execution record', async () => {
    const { store, session } = await setup({ owner: OWNER, plan: 'scale web' });
    await store.update<State>('operation', session.id, session.revision, { ...session.state, execution: RUNNING });
    const err = await rejection<ValidationError>(stopApprovalSession(store, 'operation', session, by, now, START));
    expect(err.message).to.match(/is being executed by another request/);
  });

  it('someone else is refused (403) and nothing is stored', async () => {
    const { store, session } = await setup({ owner: OWNER, plan: 'scale web' });
    const err = await rejection<DomainError>(stopApprovalSession(store, 'operation', session, { caller: CALLERS['another operator'] }, now, START));
    expect(err.code).to.equal('FORBIDDEN');
    expect((await store.get<State>('operation', session.id))!.state.stopped).to.equal(undefined);
  });
});
