import { expect } from 'chai';
import { OPERATE_GRAMMAR } from '../../application/operations/operate.js';
import { Remediate, REMEDIATE_GRAMMAR } from '../../application/remediation/remediate.js';
import { dispatchSessionCall, parseSessionCall, type ApprovalSessionTool, type SessionToolInput } from '../../application/sessions/session-dispatch.js';
import { identityId, rolesUpTo, type Caller } from '../../domain/auth/caller.js';
import { NO_SECOND_APPROVER } from '../../domain/auth/session-owner.js';
import { ValidationError, type DomainError } from '../../domain/errors.js';
import { readOnlyView } from '../../domain/ports/cluster-reader.js';
import type { ApprovalSessionState } from '../../domain/sessions/approval-session.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { openSafety } from '../fakes/null-safety.js';
import { FakeClock } from '../support/fake-clock.js';
import { operateOnFakes, planJson, scaleWeb } from '../support/operate-fixtures.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { rejection } from '../support/rejection.js';
import { analysisAnswer, webDeployment } from '../support/remediation-fixtures.js';

const SID = 'rem_0123456789abcdef0123456789abcdef';
const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('parseSessionCall: one grammar for remediate and operate (application/sessions/session-dispatch.ts)', () => {
  const parsed: [string, SessionToolInput & Record<string, unknown>, unknown][] = [
    ['remediate', { issue: 'web crashes' }, { step: 'start' }],
    ['remediate', { issue: 'web crashes', mode: 'automatic', onFailure: 'revert' }, { step: 'start' }],
    ['remediate', { sessionId: SID }, { step: 'view', sessionId: SID }],
    ['remediate', { sessionId: SID, executeChoice: 2 }, { step: 'stop', sessionId: SID }],
    [
      'remediate',
      { sessionId: SID, executeChoice: 1, planDigest: DIGEST, delivery: 'git', onFailure: 'report' },
      { step: 'execute', sessionId: SID, planDigest: DIGEST, delivery: 'git', onFailure: 'report' },
    ],
    ['operate', { intent: 'scale web' }, { step: 'start' }],
    ['operate', { sessionId: SID, evidence: 'logs' }, { step: 'view', sessionId: SID }],
    ['operate', { sessionId: SID, executeChoice: 2 }, { step: 'stop', sessionId: SID }],
    ['operate', { sessionId: SID, executeChoice: 1 }, { step: 'execute', sessionId: SID }],
    ['operate', { sessionId: SID, refinedIntent: 'to 3', evidence: 'e' }, { step: 'refine', sessionId: SID, refinedIntent: 'to 3', evidence: 'e' }],
  ];
  for (const [tool, input, call] of parsed)
    it(`${tool} ${JSON.stringify(input)} is ${(call as { step: string }).step}`, () => {
      const got = parseSessionCall(input, tool === 'remediate' ? REMEDIATE_GRAMMAR : OPERATE_GRAMMAR);
      expect(got).to.deep.equal((call as { step: string }).step === 'start' ? { step: 'start', input } : call);
    });

  // every refusal is the one each tool answered before they shared the parser, in the same order
  const refused: [string, Record<string, unknown>, string][] = [
    ['remediate', { issue: 'x', delivery: 'git' }, 'delivery goes with executeChoice 1 (and a sessionId)'],
    ['operate', { sessionId: SID, executeChoice: 2, delivery: 'live' }, 'delivery goes with executeChoice 1 (and a sessionId)'],
    ['remediate', { issue: 'x', onFailure: 'revert' }, 'onFailure goes with executeChoice 1 (and a sessionId), or with mode automatic when starting'],
    ['operate', { intent: 'x', onFailure: 'revert' }, 'onFailure goes with executeChoice 1 (and a sessionId)'],
    ['operate', { intent: 'x', mode: 'automatic', onFailure: 'revert' }, 'onFailure goes with executeChoice 1 (and a sessionId)'],
    ['remediate', { issue: 'x', executeChoice: 1 }, 'executeChoice continues an investigation: send it with the sessionId an earlier remediate call returned'],
    [
      'operate',
      { intent: 'x', refinedIntent: 'y' },
      'refinedIntent and executeChoice continue an operation: send them with the sessionId an earlier operate call returned',
    ],
    ['remediate', {}, 'issue is required to start an investigation (or send sessionId to continue one)'],
    ['operate', { evidence: 'e' }, 'intent is required to start an operation (or send sessionId to continue one)'],
    [
      'operate',
      { sessionId: SID, intent: 'x', planDigest: DIGEST },
      'intent starts a new operation: to change the plan of a session, send refinedIntent with its sessionId',
    ],
    ['operate', { sessionId: SID, refinedIntent: 'y', executeChoice: 1 }, 'Send either refinedIntent or executeChoice, not both'],
    ['operate', { sessionId: SID, planDigest: DIGEST }, 'planDigest goes with executeChoice 1 (and a sessionId)'],
    ['remediate', { sessionId: SID, issue: 'x', planDigest: DIGEST, executeChoice: 2 }, 'planDigest goes with executeChoice 1 (and a sessionId)'],
    [
      'remediate',
      { sessionId: SID, issue: 'x', mode: 'manual', executeChoice: 1 },
      'issue, mode only apply when starting an investigation; with sessionId send executeChoice (1 execute, 2 stop) or nothing to see the session',
    ],
    // remediate does not refine: refinedIntent is not a field of its input (the schema refuses it), the parser never reads it
  ];
  for (const [tool, input, message] of refused)
    it(`${tool} ${JSON.stringify(input)}: 400 "${message.slice(0, 40)}…"`, () => {
      expect(() => parseSessionCall(input, tool === 'remediate' ? REMEDIATE_GRAMMAR : OPERATE_GRAMMAR))
        .to.throw(ValidationError)
        .with.property('message', message);
    });
});

describe('dispatchSessionCall: reads the session, asks the aggregate, then hands the I/O to the tool', () => {
  type S = ApprovalSessionState & { plan: string };
  const setup = async () => {
    const clock = new FakeClock();
    const sessions = new FakeSessionStore({ clock });
    const steps: string[] = [];
    const tool: ApprovalSessionTool<SessionToolInput, S, string> = {
      kind: 'operation',
      start: 'Start anew.',
      sessions,
      clock,
      approval: NO_SECOND_APPROVER,
      requireFor: (step) => {
        steps.push(`require ${step}`);
        if (step === 'refine') throw new ValidationError('no model configured');
      },
      planOf: () => ({ planDigest: DIGEST, risks: ['low'], namespaces: ['x'] }),
      view: (s) => `${s.id}: ${s.state.stopped ? 'stopped' : 'proposed'}`,
      begin: async () => 'started',
      execute: async (s, approval) => {
        steps.push(`execute ${approval.planDigest}`);
        return 'executed';
      },
    };
    const owner = { id: identityId('tokens-file', 'svc', 'alice'), username: 'alice', kind: 'tokens-file' as const };
    const session = await sessions.create<S>('operation', { owner, plan: 'p' });
    return { tool, sessions, steps, session };
  };
  const bob: Caller = { id: identityId('tokens-file', 'svc', 'bob'), username: 'bob', groups: [], roles: rolesUpTo('operator'), kind: 'tokens-file' };

  it('an unknown session is a 400 naming how to start, after the step`s own requirement and before any tool I/O', async () => {
    const { tool, steps } = await setup();
    const err = await rejection<ValidationError>(dispatchSessionCall(tool, { step: 'execute', sessionId: 'opr_ffffffffffffffffffffffffffffffff' }, undefined));
    expect(err.message).to.equal('Unknown or expired session: opr_ffffffffffffffffffffffffffffffff. Start anew.');
    expect(steps).to.deep.equal(['require execute']);
  });

  it('a refusal of the aggregate stops the call before the tool runs: someone else executing, a stale digest', async () => {
    const { tool, steps, session } = await setup();
    const notOwner = await rejection<DomainError>(dispatchSessionCall(tool, { step: 'execute', sessionId: session.id }, { caller: bob, requestId: 'req-1' }));
    expect(notOwner.code).to.equal('FORBIDDEN');
    const stale = await rejection<DomainError>(
      dispatchSessionCall(tool, { step: 'execute', sessionId: session.id, planDigest: `sha256:${'b'.repeat(64)}` }, undefined),
    );
    expect(stale.code).to.equal('CONFLICT');
    expect(steps).to.deep.equal(['require execute', 'require execute']);
    expect(await dispatchSessionCall(tool, { step: 'execute', sessionId: session.id, planDigest: DIGEST }, undefined)).to.equal('executed');
    expect(steps.at(-1)).to.equal(`execute ${DIGEST}`);
  });

  it('a tool without refine refuses it; a step the server cannot take is refused before the session is read', async () => {
    const { tool, session } = await setup();
    const err = await rejection<ValidationError>(dispatchSessionCall(tool, { step: 'refine', sessionId: session.id, refinedIntent: 'x' }, undefined));
    expect(err.message).to.equal('no model configured');
    tool.requireFor = () => undefined;
    expect(
      (await rejection<ValidationError>(dispatchSessionCall(tool, { step: 'refine', sessionId: session.id, refinedIntent: 'x' }, undefined))).message,
    ).to.equal('operation sessions are not refined');
  });

  it('stop goes through stopApprovalSession: stored once, the same answer twice; someone else gets 403', async () => {
    const { tool, sessions, session } = await setup();
    expect(
      (await rejection<DomainError>(dispatchSessionCall(tool, { step: 'stop', sessionId: session.id }, { caller: bob, requestId: 'req-1' }))).code,
    ).to.equal('FORBIDDEN');
    const first = await dispatchSessionCall(tool, { step: 'stop', sessionId: session.id }, undefined);
    const revision = (await sessions.get<S>('operation', session.id))!.revision;
    const second = await dispatchSessionCall(tool, { step: 'stop', sessionId: session.id }, undefined);
    expect(first).to.equal(`${session.id}: stopped`);
    expect(second).to.equal(first);
    expect((await sessions.get<S>('operation', session.id))!.revision).to.equal(revision);
  });
});

describe('stopping twice answers the same in every session tool', () => {
  it('remediate: the second stop answers 200 with the same view as the first, storing nothing', async () => {
    const clock = new FakeClock();
    const cluster = new FakeCluster().put(webDeployment('nginx:9.9-missing'));
    const sessions = new FakeSessionStore({ clock });
    const reader = readOnlyView(cluster);
    const llm = new FakeLlm(['The image does not exist.', analysisAnswer()]);
    const limits = { timeoutMs: 5000, maxTokens: 1_000_000 };
    const remediate = new Remediate({
      llm,
      reader,
      writer: cluster,
      sessions,
      tracer: new RecordingTracer(),
      clock,
      limits,
      ...openSafety(cluster, { reader }),
    });
    const { sessionId } = await remediate.execute({ issue: 'web does not start' });
    const first = await remediate.execute({ sessionId, executeChoice: 2 });
    clock.advance(60_000);
    const second = await remediate.execute({ sessionId, executeChoice: 2 });
    expect(first.status).to.equal('stopped');
    expect(second).to.deep.equal(first);
    expect(cluster.writes).to.deep.equal([]);
  });

  it('operate: the second stop answers 200 with the same view as the first, storing nothing', async () => {
    const { clock, cluster, operate } = operateOnFakes(['ok', planJson([scaleWeb(5)])]);
    const { sessionId } = await operate.execute({ intent: 'scale web to 5' });
    const first = await operate.execute({ sessionId, executeChoice: 2 });
    clock.advance(60_000);
    const second = await operate.execute({ sessionId, executeChoice: 2 });
    expect(first.status).to.equal('stopped');
    expect(second).to.deep.equal(first);
    expect(cluster.writes).to.deep.equal([]);
  });
});
