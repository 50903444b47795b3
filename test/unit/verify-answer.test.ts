import { expect } from 'chai';
import { VerifyExecution, type ExecutionVerification, type FollowUpRuns } from '../../application/actions/verify-execution.js';
import { withinRun, type RunScope } from '../../application/runs/run-scope.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { Caller } from '../../domain/auth/caller.js';
import { InstantClock } from '../support/instant-clock.js';
import { deployment, rolledOut } from '../support/operate-fixtures.js';

const WEB: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };
const CALLER: Caller = { id: 'static:svc:admin', username: 'admin', groups: [], roles: ['viewer', 'operator', 'admin'], kind: 'static' };
const rollingOut = (): KubeObject => ({ ...deployment(), status: { ...rolledOut(2, 3), updatedReplicas: 1 } });
const failed = (): KubeObject => ({
  ...deployment(),
  status: { ...rolledOut(2, 3), conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'too slow' }] },
});

/** A reader whose Deployment is whatever `now()` says at each read (no pods, no events). */
function reader(now: () => KubeObject): ClusterReader {
  return { get: async () => now(), list: async () => ({ items: [] }), events: async () => [] } as unknown as ClusterReader;
}

function verifier(read: () => KubeObject, clock: InstantClock, settings: Record<string, number>, followUps?: FollowUpRuns) {
  // a ledger that knows none of the writes: nothing to record a later verdict on (test/unit/later-verdict-ledger.test.ts records them)
  const ledger = { get: async () => undefined } as never;
  return new VerifyExecution(reader(read), clock, { windowMs: 10_000, intervalMs: 1000, ...settings }, {} as never, ledger, followUps);
}

const input = (extra: Record<string, unknown> = {}) => ({
  snapshot: new Map(),
  writes: [{ target: WEB, ledgerId: 'chg_1_aaaaaaaa' }],
  deadlineMs: 300_000,
  onFailure: 'report' as const,
  caller: CALLER,
  tool: 'operate',
  ...extra,
});

describe('VerifyExecution answers in time', () => {
  it('a healthy rollout held for stableMs ends the window early, stable', async () => {
    const clock = new InstantClock(() => 0);
    const v = await verifier(() => deployment(), clock, { stableMs: 3000, answerMs: 60_000 }).verify(input());
    expect(v).to.deep.include({ verdict: 'healthy', stable: true });
    expect(v!.observedMs).to.equal(3000);
    expect(v!.observations).to.equal(4);
  });

  it('past answerMs: the verdict so far, then the rest in a follow-up run that reports a later degraded verdict and hands it to onLaterVerdict', async () => {
    const clock = new InstantClock(() => 0);
    let state: () => KubeObject = rollingOut;
    const started: Array<{ tool: string; caller: Caller }> = [];
    let runResult: Promise<unknown> | undefined;
    const events: Array<Record<string, unknown>> = [];
    const followUps: FollowUpRuns = {
      async start(what, work) {
        started.push(what);
        const scope: RunScope = { signal: new AbortController().signal, progress: (_type, data) => events.push(data), respondAsync: true };
        runResult = withinRun(scope, () => work(scope));
        return 'run_0123456789abcdef0123456789abcdef';
      },
    };
    let later: (v: ExecutionVerification) => void = () => undefined;
    const laterVerdict = new Promise<ExecutionVerification>((resolve) => (later = resolve));
    const answer = await verifier(() => state(), clock, { stableMs: 60_000, answerMs: 1500 }, followUps).verify(
      input({ onLaterVerdict: async (v: ExecutionVerification) => later(v) }),
    );
    expect(answer).to.deep.include({ verdict: 'unknown', pending: true });
    expect(answer!.followUp).to.deep.include({
      runId: 'run_0123456789abcdef0123456789abcdef',
      events: '/api/v1/runs/run_0123456789abcdef0123456789abcdef/events',
    });
    expect(answer!.followUp!.ledgerIds).to.deep.equal(['chg_1_aaaaaaaa']);
    expect(started).to.deep.equal([{ tool: 'operate', caller: CALLER }]);
    state = failed;
    const final = await laterVerdict;
    expect(final).to.deep.include({ verdict: 'degraded', onFailure: 'report' });
    expect(final.pending).to.equal(undefined);
    expect(final.decidedAt).to.be.a('string');
    expect(final.revertCalls!.map((c) => c.ledgerId)).to.deep.equal(['chg_1_aaaaaaaa']);
    expect(await runResult).to.deep.equal(final);
    expect(events.map((e) => e.step)).to.include('verdict');
  });

  it('without follow-up runs the rest is still watched, and the later verdict still reaches onLaterVerdict', async () => {
    const clock = new InstantClock(() => 0);
    let later: (v: ExecutionVerification) => void = () => undefined;
    const laterVerdict = new Promise<ExecutionVerification>((resolve) => (later = resolve));
    const answer = await verifier(rollingOut, clock, { stableMs: 60_000, answerMs: 1500 }).verify(
      input({ onLaterVerdict: async (v: ExecutionVerification) => later(v) }),
    );
    expect(answer).to.deep.include({ pending: true });
    expect(answer!.followUp!.runId).to.equal(undefined);
    const final = await laterVerdict;
    // a rollout still going when the 10 s window ends, as many available as before: unknown
    expect(final.verdict).to.equal('unknown');
    expect(final.observedMs).to.be.at.least(10_000);
  });

  it('a run of its own (respond-async) waits the whole window: no answer cap', async () => {
    const clock = new InstantClock(() => 0);
    const scope: RunScope = { signal: new AbortController().signal, progress: () => undefined, respondAsync: true };
    const v = await withinRun(scope, () => verifier(rollingOut, clock, { stableMs: 60_000, answerMs: 1500 }).verify(input()));
    expect(v!.pending).to.equal(undefined);
    expect(v!.observedMs).to.be.at.least(10_000);
  });

  it('an execution that changed nothing svc can judge ends at once', async () => {
    const clock = new InstantClock(() => 0);
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'x' }, data: {} } as unknown as KubeObject;
    const v = await verifier(() => configMap, clock, {}).verify(
      input({ writes: [{ target: { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'x' } }] }),
    );
    expect(v).to.deep.include({ verdict: 'unknown', observations: 1, observedMs: 0 });
  });
});
