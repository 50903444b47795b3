import { expect } from 'chai';
import { VerifyExecution, type ExecutionVerification } from '../../application/actions/verify-execution.js';
import { ChangeRecorder } from '../../application/ledger/change-recorder.js';
import { GetChange } from '../../application/ledger/get-change.js';
import { ListChanges } from '../../application/ledger/list-changes.js';
import { RevertChange } from '../../application/ledger/revert-change.js';
import { revertableEntry } from '../../application/ledger/revertable-entry.js';
import { VerifyLedger } from '../../application/ledger/verify-ledger.js';
import { NO_SECOND_APPROVER } from '../../domain/auth/session-owner.js';
import type { Caller } from '../../domain/auth/caller.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import { ConflictError, DependencyError, ValidationError } from '../../domain/errors.js';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';
import { verdictRecord } from '../../domain/ledger/verdict-entry.js';
import { executionHealthOutput } from '../../domain/tools/outputs/health-output.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import { NO_METRICS } from '../../domain/ports/metrics.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { guardOver } from '../fakes/null-safety.js';
import { InstantClock } from '../support/instant-clock.js';
import { aChangeRecord } from '../support/ledger-records.js';
import { deployment, rolledOut } from '../support/operate-fixtures.js';
import { rejection } from '../support/rejection.js';

/**
 * A verdict reached after the tool answered (issue 41) is recorded on the
 * change ledger: a `verdict` entry per judged change, naming it in
 * `verdictOf`, sealed in the chain, listed by `?type=verdict`, linked from
 * the change (`laterVerdict`), and never itself reverted.
 */
const WEB: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };
const ALICE: Caller = { id: 'tokens-file:svc:alice', username: 'alice', groups: [], roles: ['viewer', 'operator'], kind: 'tokens-file' };
const ADMIN: Caller = { id: 'static:svc:admin', username: 'admin', groups: [], roles: ['viewer', 'operator', 'admin'], kind: 'static' };
const VIEWER: Caller = { id: 'tokens-file:svc:vic', username: 'vic', groups: [], roles: ['viewer'], kind: 'tokens-file' };
const rollingOut = (): KubeObject => ({ ...deployment(), status: { ...rolledOut(2, 3), updatedReplicas: 1 } });
const failed = (): KubeObject => ({
  ...deployment(),
  status: {
    ...rolledOut(2, 3),
    conditions: [
      {
        type: 'Progressing',
        status: 'False',
        reason: 'ProgressDeadlineExceeded',
        message: 'pulled from https://robot:abc123secretvalue@registry.example too slow',
      },
    ],
  },
});

function reader(now: () => KubeObject): ClusterReader {
  return { get: async () => now(), list: async () => ({ items: [] }), events: async () => [] } as unknown as ClusterReader;
}

describe('later verdicts on the change ledger', () => {
  let clock: InstantClock;
  let ledger: FakeChangeLedger;
  let recorder: ChangeRecorder;
  let change: ChangeEntry;
  let state: () => KubeObject;

  beforeEach(async () => {
    clock = new InstantClock(() => Date.parse('2026-12-02T10:00:00Z'));
    ledger = new FakeChangeLedger(clock);
    recorder = new ChangeRecorder(ledger, new FakeCluster());
    change = await ledger.append(
      aChangeRecord({ caller: { id: ALICE.id, username: 'alice', roles: ['viewer', 'operator'] }, target: WEB, sessionId: `opr_${'c'.repeat(32)}` }),
    );
    state = rollingOut;
  });

  /** A verifier whose answer cap passes before the window ends; `revertTo` plays RevertChange for a degraded execution. */
  function verifier(settings: Record<string, number>, revertTo?: (id: string) => Promise<{ revert: { id: string } }>) {
    const revert = { execute: async ({ id }: { id: string }) => (revertTo ? revertTo(id) : { revert: { id: 'none' } }) };
    return new VerifyExecution(
      reader(() => state()),
      clock,
      { windowMs: 10_000, intervalMs: 1000, answerMs: 1500, stableMs: 60_000, ...settings },
      revert as never,
      ledger,
      undefined,
      recorder,
    );
  }

  /** Verifies `change` and answers the answer (pending) and the later verdict, as the session would receive it. */
  async function verifyLater(v: VerifyExecution, onFailure: 'revert' | 'report', flip?: () => void) {
    let later: (x: ExecutionVerification) => void = () => undefined;
    const laterVerdict = new Promise<ExecutionVerification>((resolve) => (later = resolve));
    const answer = await v.verify({
      snapshot: new Map(),
      writes: [{ target: WEB, ledgerId: change.id }],
      deadlineMs: 300_000,
      onFailure,
      caller: ALICE,
      tool: 'operate',
      onLaterVerdict: async (x) => later(x),
    });
    expect(answer).to.deep.include({ pending: true });
    expect(answer!.verdictIds).to.equal(undefined);
    flip?.();
    return { answer: answer!, final: await laterVerdict };
  }

  const verdicts = async () => (await ledger.list({ type: 'verdict' }, { limit: 50 })).entries;

  it('a later healthy verdict is a verdict entry on the change, named on the session, linked from the change, and the chain verifies', async () => {
    state = () => deployment();
    const { final } = await verifyLater(verifier({ stableMs: 3000 }), 'report');
    expect(final).to.deep.include({ verdict: 'healthy', stable: true });
    const [entry] = await verdicts();
    expect(final.verdictIds).to.deep.equal([entry.id]);
    // the session answers it in the tools' declared output (an MCP client validates it: no unknown key)
    expect(() => executionHealthOutput.strict().parse(final)).to.not.throw();
    expect(entry).to.deep.include({
      type: 'verdict',
      verdictOf: change.id,
      caller: change.caller,
      tool: 'operate',
      sessionId: change.sessionId,
      approval: change.approval,
      target: WEB,
      before: null,
      change: { method: 'none' },
      outcome: { status: 'judged' },
      inverse: null,
    });
    expect(entry.verdict).to.deep.include({ health: 'healthy', execution: 'healthy', onFailure: 'report', stable: true, decidedAt: final.decidedAt });
    expect(entry.verdict!.revertId).to.equal(undefined);
    expect(entry.verdict!.notReverted).to.equal(undefined);

    const linked = await new GetChange(ledger).execute(change.id, VIEWER);
    expect(linked.laterVerdict).to.deep.equal({ id: entry.id, health: 'healthy', execution: 'healthy', decidedAt: final.decidedAt });
    expect((await new GetChange(ledger).execute(entry.id, VIEWER)).laterVerdict).to.equal(undefined);
    const integrity = await new VerifyLedger(ledger).execute(VIEWER);
    expect(integrity).to.deep.include({ ok: true, entries: 2 });
  });

  it('a later degraded verdict with onFailure revert records the verdict naming the revert entry', async () => {
    const reverted: string[] = [];
    const v = verifier({}, async (id) => {
      reverted.push(id);
      return { revert: (await ledger.append(aChangeRecord({ type: 'revert', tool: 'revert', target: WEB, revertOf: id }))) as { id: string } };
    });
    const { final } = await verifyLater(v, 'revert', () => (state = failed));
    expect(final.verdict).to.equal('degraded');
    expect(reverted).to.deep.equal([change.id]);
    const revertId = final.reverted![0].revertId;
    const [entry] = await verdicts();
    expect(entry.verdictOf).to.equal(change.id);
    expect(entry.verdict).to.deep.include({ health: 'degraded', execution: 'degraded', onFailure: 'revert', revertId });
    expect(entry.verdict!.notReverted).to.equal(undefined);
    // cluster text is scrubbed on its way into the ledger, as every entry's
    expect(entry.verdict!.evidence.join(' ')).to.match(/^Deployment x\/web: rollout failed/);
    expect(entry.verdict!.evidence.join(' ')).to.not.include('abc123secretvalue');
    // the revert is before the verdict in the chain: the verdict says what was done
    expect(entry.seq).to.be.above((await ledger.get(revertId))!.seq);
    const linked = await new GetChange(ledger).execute(change.id, ADMIN);
    expect(linked).to.deep.include({ revertedBy: revertId });
    expect(linked.laterVerdict).to.deep.include({ id: entry.id, health: 'degraded' });
    expect(await new VerifyLedger(ledger).execute(VIEWER)).to.deep.include({ ok: true, entries: 3 });
  });

  it('a later degraded verdict with onFailure report records the verdict, not reverted, with the call that would', async () => {
    const { final } = await verifyLater(verifier({}), 'report', () => (state = failed));
    expect(final.verdict).to.equal('degraded');
    const [entry] = await verdicts();
    expect(final.verdictIds).to.deep.equal([entry.id]);
    expect(entry.verdict).to.deep.include({
      health: 'degraded',
      onFailure: 'report',
      notReverted: `left in place (onFailure report): svc changes revert ${change.id}`,
    });
    expect(entry.verdict!.revertId).to.equal(undefined);
    expect((await ledger.list({ revertOf: change.id }, { limit: 5 })).entries).to.have.length(0);
    expect(await new VerifyLedger(ledger).execute(VIEWER)).to.deep.include({ ok: true, entries: 2 });
  });

  it('a verdict entry is never reverted: 409 naming the change it judges, for its author and for an admin', async () => {
    const entry = await ledger.append(
      verdictRecord(change, {
        health: 'degraded',
        execution: 'degraded',
        evidence: [],
        onFailure: 'report',
        decidedAt: '2026-12-02T10:00:10.000Z',
        windowMs: 1,
        observedMs: 1,
      }),
    );
    for (const caller of [ALICE, ADMIN]) {
      const refused = await rejection(revertableEntry(ledger, entry.id, caller));
      expect(refused).to.be.instanceOf(ConflictError);
      expect((refused as ConflictError).message).to.equal(
        `Entry ${entry.id} is svc's verdict on change ${change.id}, not a change: nothing was written, so there is nothing to revert; to undo the change it judges, revert ${change.id}`,
      );
      expect((refused as ConflictError).details).to.deep.equal({ id: entry.id, verdictOf: change.id });
    }
    // through the use case the REST call and the CLI use, too: nothing is written
    const cluster = new FakeCluster();
    const revert = new RevertChange(ledger, guardOver(cluster), recorder, { approval: NO_SECOND_APPROVER, metrics: NO_METRICS });
    const before = ledger.texts.length;
    expect(await rejection(revert.execute({ id: entry.id }, ADMIN))).to.be.instanceOf(ConflictError);
    expect(ledger.texts.length).to.equal(before);
  });

  it('?type= lists the entries of one type; a bad type is a 400 naming the types', async () => {
    await ledger.append(
      verdictRecord(change, {
        health: 'healthy',
        execution: 'healthy',
        evidence: [],
        onFailure: 'report',
        decidedAt: '2026-12-02T10:00:10.000Z',
        windowMs: 1,
        observedMs: 1,
      }),
    );
    const list = new ListChanges(ledger);
    expect((await list.execute({ type: 'verdict' }, VIEWER)).changes.map((c) => c.type)).to.deep.equal(['verdict']);
    expect((await list.execute({ type: 'change' }, VIEWER)).changes.map((c) => c.id)).to.deep.equal([change.id]);
    expect((await list.execute({ outcome: 'judged' }, VIEWER)).changes.map((c) => c.type)).to.deep.equal(['verdict']);
    const bad = await rejection(list.execute({ type: 'verdicts' }, VIEWER));
    expect(bad).to.be.instanceOf(ValidationError);
    expect((bad as Error).message).to.equal('Invalid type: one of change, revert, intent, verdict');
  });

  it('verdictRecord bounds the evidence it keeps', () => {
    const line = 'x'.repeat(2000);
    const record = verdictRecord(change, {
      health: 'degraded',
      execution: 'degraded',
      evidence: Array.from({ length: 50 }, () => line),
      onFailure: 'report',
      notReverted: line,
      decidedAt: '2026-12-02T10:00:10.000Z',
      windowMs: 1,
      observedMs: 1,
    });
    expect(record.verdict!.evidence).to.have.length(20);
    expect(record.verdict!.evidence.every((l) => l.length === 500 && l.endsWith('…'))).to.equal(true);
    expect(record.verdict!.notReverted).to.have.length(500);
  });

  it('a ledger that cannot record the verdict costs only its entry: the verdict still reaches the session', async () => {
    ledger.failAppend = (r) => (r.type === 'verdict' ? new DependencyError('ledger', 'disk full') : undefined);
    state = () => deployment();
    const { final } = await verifyLater(verifier({ stableMs: 3000 }), 'report');
    expect(final.verdict).to.equal('healthy');
    expect(final.verdictIds).to.equal(undefined);
    expect(await verdicts()).to.have.length(0);
  });
});
