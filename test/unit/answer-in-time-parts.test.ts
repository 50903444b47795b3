import { expect } from 'chai';
import { laterVerdictOn } from '../../application/actions/later-verdict.js';
import type { ExecutionVerification } from '../../application/actions/verify-execution.js';
import { FollowUpRunsLink } from '../../application/runs/follow-up-runs.js';
import { newTally, tallyClusterWrite, tallyModelCall, withinTally } from '../../application/tool-tally.js';
import type { Caller } from '../../domain/auth/caller.js';
import { approvalOutput } from '../../domain/tools/outputs/approval-output.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { InstantClock } from '../support/instant-clock.js';

const CALLER: Caller = { id: 'static:svc:admin', username: 'admin', groups: [], roles: ['viewer', 'operator', 'admin'], kind: 'static' };

const verdict = (v: 'healthy' | 'degraded', pending?: boolean) =>
  ({
    verdict: v,
    evidence: [],
    objects: [],
    windowMs: 60_000,
    observedMs: 1_000,
    observations: 1,
    onFailure: 'report',
    ...(pending ? { pending } : {}),
  }) as unknown as ExecutionVerification;

describe('answering in time: the parts', () => {
  describe('approval.by (the answer schema)', () => {
    it('keeps every field the answer carries: id, username, kind, person', () => {
      const by = { id: 'oidc:https://idp:alice', username: 'alice', kind: 'oidc', person: 'alice' };
      expect(approvalOutput.parse({ by, planDigest: 'sha256:ab' }).by).to.deep.equal(by);
    });
    it('refuses a caller kind svc does not have', () => {
      expect(() => approvalOutput.parse({ by: { username: 'a', kind: 'root' }, planDigest: 'x' })).to.throw();
    });
  });

  describe('tool tally', () => {
    it('counts model calls, tokens and writes of the tool call it runs within, separately for concurrent calls', async () => {
      const a = newTally();
      const b = newTally();
      await Promise.all([
        withinTally(a, async () => {
          tallyModelCall({ inputTokens: 10, outputTokens: 3 });
          await new Promise((r) => setImmediate(r));
          tallyModelCall(undefined);
          tallyClusterWrite();
        }),
        withinTally(b, async () => {
          await new Promise((r) => setImmediate(r));
          tallyModelCall({ inputTokens: 1, outputTokens: 1 });
        }),
      ]);
      expect(a).to.deep.equal({ modelCalls: 2, inputTokens: 10, outputTokens: 3, clusterWrites: 1 });
      expect(b).to.deep.equal({ modelCalls: 1, inputTokens: 1, outputTokens: 1, clusterWrites: 0 });
    });
    it('outside a tool call counting does nothing', () => {
      expect(() => (tallyModelCall({ inputTokens: 5, outputTokens: 5 }), tallyClusterWrite())).not.to.throw();
    });
  });

  describe('follow-up runs link', () => {
    it('unbound, answers undefined and the work goes untracked; bound, hands the work to the runs', async () => {
      const link = new FollowUpRunsLink();
      expect(await link.start({ tool: 'remediate', caller: CALLER }, async () => 1)).to.equal(undefined);
      const seen: string[] = [];
      link.bind({ start: async (what) => (seen.push(what.tool), 'run_1') });
      expect(await link.start({ tool: 'operate', caller: CALLER }, async () => 1)).to.equal('run_1');
      expect(seen).to.deep.equal(['operate']);
    });
  });

  describe('a later verdict on the session', () => {
    const clock = new InstantClock();
    const store = () => new FakeSessionStore({ clock });
    const executed = (health: ExecutionVerification) => ({
      execution: { status: 'done' as const, startedAt: 't', outcome: { health } },
    });

    it('takes the place of the verdict so far', async () => {
      const s = store();
      const session = await s.create('remediation', executed(verdict('healthy', true)));
      await laterVerdictOn(s, clock, 'remediation', session.id)(verdict('degraded'));
      const after = await s.get<ReturnType<typeof executed>>('remediation', session.id);
      expect(after!.state.execution.outcome.health.verdict).to.equal('degraded');
      expect(after!.state.execution.outcome.health.pending).to.equal(undefined);
    });

    it('leaves a final verdict alone, and a session that is gone', async () => {
      const s = store();
      const session = await s.create('remediation', executed(verdict('healthy')));
      await laterVerdictOn(s, clock, 'remediation', session.id)(verdict('degraded'));
      expect((await s.get<ReturnType<typeof executed>>('remediation', session.id))!.state.execution.outcome.health.verdict).to.equal('healthy');
      await laterVerdictOn(s, clock, 'remediation', 'rem_00000000000000000000000000000000')(verdict('degraded'));
    });

    it('waits while the call that answered is still storing its outcome', async () => {
      const s = store();
      const session = await s.create('remediation', { execution: { status: 'running' as const, startedAt: 't' } });
      let polls = 0;
      const timers = {
        schedule: (_ms: number, fn: () => void) => {
          if (++polls === 2) void s.update('remediation', session.id, 1, executed(verdict('healthy', true))).then(fn);
          else setImmediate(fn);
          return () => undefined;
        },
      };
      await laterVerdictOn(s, timers, 'remediation', session.id)(verdict('degraded'));
      expect(polls).to.be.greaterThan(1);
      expect((await s.get<ReturnType<typeof executed>>('remediation', session.id))!.state.execution.outcome.health.verdict).to.equal('degraded');
    });
  });
});
