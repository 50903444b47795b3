import { expect } from 'chai';
import { stopApprovalSession } from '../../application/sessions/stop-session.js';
import { ValidationError } from '../../domain/errors.js';
import { phaseOf, stopDecision, type ApprovalPhase, type Executable } from '../../domain/sessions/approval-session.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { rejection } from '../support/rejection.js';

const AT = '2026-12-02T10:00:00.000Z';
const START = 'Start a new one.';
type State = Executable<{ ok: boolean }> & { plan: string };

/** One stored state per phase of the lifecycle. */
const PHASES: [ApprovalPhase, State][] = [
  ['proposed', { plan: 'scale web' }],
  ['executing', { plan: 'scale web', execution: { status: 'running', startedAt: AT } }],
  ['executed', { plan: 'scale web', execution: { status: 'done', startedAt: AT, finishedAt: AT, outcome: { ok: true } } }],
  ['executed', { plan: 'scale web', execution: { status: 'failed', startedAt: AT, finishedAt: AT, error: 'the write was refused' } }],
  ['stopped', { plan: 'scale web', stopped: { at: AT } }],
];

describe('the approval session aggregate (domain/sessions/approval-session.ts)', () => {
  it('reads each phase from the stored state', () => {
    for (const [phase, state] of PHASES) expect(phaseOf(state), JSON.stringify(state)).to.equal(phase);
  });

  const stopRule: Record<ApprovalPhase, 'stops' | 'unchanged' | RegExp> = {
    proposed: 'stops',
    stopped: 'unchanged',
    executing: /is being executed by another request; it cannot be stopped/,
    executed: /was already executed \((done|failed) at .*\); a session executes at most once, it cannot be stopped\. Start a new one\./,
  };
  for (const [phase, state] of PHASES) {
    it(`stop in phase ${phase}${state.execution ? ` (${state.execution.status})` : ''}: ${String(stopRule[phase])}`, () => {
      const d = stopDecision('rem_1', state, '2026-12-02T11:00:00.000Z', START);
      const rule = stopRule[phase];
      if (rule === 'stops') expect(d).to.deep.equal({ next: { ...state, stopped: { at: '2026-12-02T11:00:00.000Z' } } });
      else if (rule === 'unchanged') expect(d).to.deep.equal({ unchanged: state });
      else {
        expect(d).to.have.property('refused').that.is.instanceOf(ValidationError);
        expect((d as { refused: ValidationError }).refused.message).to.match(rule);
        expect((d as { refused: ValidationError }).refused.details).to.deep.equal({ execution: state.execution });
      }
    });
  }
});

describe('stopApprovalSession: the stop both remediate and operate run', () => {
  const setup = async (state: State) => {
    const store = new FakeSessionStore({ clock: new FakeClock() });
    const session = await store.create<State>('operation', state);
    return { store, session };
  };
  const now = new Date('2026-12-02T11:00:00.000Z');

  it('stores the stopped state once; stopping again answers the same session, storing nothing', async () => {
    const { store, session } = await setup({ plan: 'scale web' });
    const first = await stopApprovalSession(store, 'operation', session, now, START);
    expect(first.state.stopped).to.deep.equal({ at: now.toISOString() });
    const again = await stopApprovalSession(store, 'operation', first, new Date('2026-12-02T12:00:00.000Z'), START);
    expect(again).to.deep.equal(first);
    expect((await store.get<State>('operation', session.id))!.revision).to.equal(first.revision);
  });

  it('a request that lost the race to another stop answers as if it stopped twice', async () => {
    const { store, session } = await setup({ plan: 'scale web' });
    const other = await stopApprovalSession(store, 'operation', session, now, START);
    // this request read the session before the other stored its stop
    const late = await stopApprovalSession(store, 'operation', session, new Date('2026-12-02T11:00:01.000Z'), START);
    expect(late).to.deep.equal(other);
  });

  it('a request that lost the race to an execution is refused with the execution record', async () => {
    const { store, session } = await setup({ plan: 'scale web' });
    await store.update<State>('operation', session.id, session.revision, { ...session.state, execution: { status: 'running', startedAt: AT } });
    const err = await rejection<ValidationError>(stopApprovalSession(store, 'operation', session, now, START));
    expect(err.message).to.match(/is being executed by another request/);
  });
});
