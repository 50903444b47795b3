import { expect } from 'chai';
import { executeApproved } from '../../application/actions/execute-approved.js';
import { applyAll } from '../../application/deployment/deploy-checks.js';
import { withinRun } from '../../application/runs/run-scope.js';
import { ChangeRecorder, LedgerIntentError, type WriteContext } from '../../application/ledger/change-recorder.js';
import { INTENT_RECOVERY_INTERVAL_MS, RecoverIntents } from '../../application/ledger/recover-intents.js';
import { rolesUpTo, type Caller } from '../../domain/auth/caller.js';
import type { ClusterAction } from '../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { ConflictError, DependencyError, ERROR_CODES, ForbiddenError } from '../../domain/errors.js';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';
import { verifyChain } from '../../domain/ledger/hash-chain.js';
import { recoveredRecord } from '../../domain/ledger/intent-recovery.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { guardOver } from '../fakes/null-safety.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { FakeClock } from '../support/fake-clock.js';
import { rejection } from '../support/rejection.js';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const deployment = (replicas: number, resourceVersion: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' }, resourceVersion },
  spec: { replicas, template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
});
const alice: Caller = { id: 'tokens-file:svc:alice', username: 'alice', groups: [], roles: [...rolesUpTo('operator')], kind: 'tokens-file' };
const context = (over: Partial<WriteContext> = {}): WriteContext => ({
  caller: alice,
  tool: 'operate',
  sessionId: `opr_${'a'.repeat(32)}`,
  request: 'scale web',
  requestId: 'req-1',
  approval: { mode: 'manual', by: 'alice' },
  ledgerIds: [],
  ...over,
});

describe('write-ahead ledger: the intent before every write, its outcome after, recovery of the rest', () => {
  let clock: FakeClock;
  let cluster: FakeCluster;
  let ledger: FakeChangeLedger;
  let recorder: ChangeRecorder;
  let logger: CapturingLogger;
  let rv: number;

  beforeEach(() => {
    clock = new FakeClock();
    rv = 100;
    cluster = new FakeCluster();
    cluster.onWrite = (o) => ({ ...o, metadata: { ...o.metadata, resourceVersion: String(++rv) } });
    cluster.put(deployment(1, '100'));
    ledger = new FakeChangeLedger(clock);
    logger = new CapturingLogger();
    recorder = new ChangeRecorder(ledger, cluster, logger);
  });

  const planned = async (replicas: number) => {
    const patch = { spec: { replicas } };
    const verdict = await cluster.dryRunPatch(ref, patch);
    return {
      target: ref,
      change: { method: 'patch' as const, patchType: 'merge' as const, body: patch },
      rationale: 'why',
      risk: 'low' as const,
      dryRun: { accepted: verdict.accepted, object: verdict.accepted ? verdict.object : undefined },
    };
  };

  it('appends the intent, durable, before the write is sent; the outcome names it and closes it', async () => {
    let seenAtSend: ChangeEntry[] = [];
    const ctx = context();
    const done = await recorder.write(ctx, await planned(3), async () => {
      seenAtSend = await ledger.openIntents();
      return cluster.patch(ref, { spec: { replicas: 3 } });
    });
    expect(seenAtSend).to.have.length(1);
    const intent = seenAtSend[0];
    expect(intent).to.deep.include({
      seq: 1,
      type: 'intent',
      caller: { id: alice.id, username: 'alice', roles: alice.roles },
      tool: 'operate',
      sessionId: ctx.sessionId,
      requestId: 'req-1',
      target: ref,
      change: { method: 'patch', patchType: 'merge', body: { spec: { replicas: 3 } } },
      outcome: { status: 'pending' },
      inverse: null,
    });
    expect(intent.before).to.deep.include({ resourceVersion: '100' });
    expect(intent.dryRun!.diff).to.deep.equal([{ path: 'spec.replicas', from: 1, to: 3 }]);
    const outcome = (await ledger.get(done.ledgerId!))!;
    expect(outcome).to.deep.include({ seq: 2, type: 'change', intentId: intent.id, outcome: { status: 'applied' }, resourceVersionAfter: '101' });
    expect(ctx.ledgerIds).to.deep.equal([outcome.id]);
    expect(await ledger.openIntents()).to.deep.equal([]);
  });

  it('an intent made inside a run (Prefer: respond-async) names the run', async () => {
    const scope = { runId: `run_${'c'.repeat(32)}`, signal: new AbortController().signal, progress: () => undefined };
    await withinRun(scope, async () => recorder.write(context(), await planned(2), () => cluster.patch(ref, { spec: { replicas: 2 } })));
    const [intent] = ledger.texts.map((t) => JSON.parse(t) as ChangeEntry);
    expect(intent).to.include({ type: 'intent', runId: scope.runId, requestId: 'req-1' });
  });

  it('attack: an intent the ledger cannot take stops the write: nothing reaches the cluster, LedgerIntentError (500 EXECUTION_ERROR)', async () => {
    ledger.failAppend = (r) =>
      r.type === 'intent' ? new DependencyError('ledger', 'The change ledger under /data/ledger could not append an entry: ENOSPC') : undefined;
    let sent = false;
    const err = await rejection<LedgerIntentError>(
      recorder.write(context(), await planned(3), async () => {
        sent = true;
        return cluster.patch(ref, { spec: { replicas: 3 } });
      }),
    );
    expect(sent).to.equal(false);
    expect(cluster.writes).to.deep.equal([]);
    expect(err).to.be.instanceOf(LedgerIntentError);
    expect(err.code).to.equal(ERROR_CODES.EXECUTION_ERROR);
    expect(err.message).to.match(/could not record the intent of the patch of Deployment\/web in shop, so it was not sent to the cluster.*ENOSPC/);
    expect(ledger.texts).to.deep.equal([]);
    expect(logger.lines.some((l) => l.level === 'error' && /intent of a write could not be recorded/.test(l.msg))).to.equal(true);
  });

  it('an outcome the ledger cannot take leaves the intent open (named in ledgerError) for recovery; the write happened', async () => {
    ledger.failAppend = (r) => (r.type === 'change' ? new DependencyError('ledger', 'disk gone') : undefined);
    const done = await recorder.write(context(), await planned(3), () => cluster.patch(ref, { spec: { replicas: 3 } }));
    expect(done.error).to.equal(undefined);
    expect(done.ledgerId).to.equal(undefined);
    const [intent] = await ledger.openIntents();
    expect(done.ledgerError).to.include(`its intent ${intent.id} is recorded`);
    expect((await cluster.get(ref))!.spec).to.deep.include({ replicas: 3 });
  });

  it('executeActions: an intent refused on the second action stops there, naming what the first already applied', async () => {
    cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'shop', resourceVersion: '7' }, data: { a: '1' } });
    const actions: ClusterAction[] = [
      { type: 'scale', target: ref, replicas: 2, description: 'Scale web', rationale: 'r', risk: 'low' },
      {
        type: 'patch',
        target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'cfg' },
        patch: { data: { a: '2' } },
        description: 'Change cfg',
        rationale: 'r',
        risk: 'low',
      },
    ];
    ledger.failAppend = (r) => (r.type === 'intent' && r.target.kind === 'ConfigMap' ? new DependencyError('redis', 'Redis is not answering') : undefined);
    const err = await rejection<LedgerIntentError>(executeApproved({ guard: guardOver(cluster), clock }, actions, [], { recorder, context: context() }));
    expect(err).to.be.instanceOf(LedgerIntentError);
    expect(err.message).to.match(
      /intent of the patch of ConfigMap\/cfg in shop, so it was not sent.*Applied before it: 1\. Scale web \(change ledger entry chg_2_\w+\)/,
    );
    expect(cluster.writes.map((w) => w.ref.kind)).to.deep.equal(['Deployment']);
    expect((await cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'cfg' }))!.data).to.deep.equal({ a: '1' });
  });

  it('deployManifests (applyAll): an intent refused on the second object is a 500 naming what the first applied, not an apply failure', async () => {
    const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data: { a: '1' } });
    const objects = [cm('one'), cm('two'), cm('three')];
    const planned = objects.map((o) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: o.metadata.name,
      namespace: 'shop',
      risk: 'low' as const,
      outcome: 'created' as const,
    }));
    const sent: string[] = [];
    const err = await rejection<LedgerIntentError>(
      applyAll(
        async (o) => {
          if (o.metadata.name === 'two')
            throw new LedgerIntentError('The change ledger could not record the intent of the apply of ConfigMap/two in shop, so it was not sent');
          sent.push(o.metadata.name);
          return { object: o, ledgerId: 'chg_2_0000000a' };
        },
        objects,
        planned,
      ),
    );
    expect(err).to.be.instanceOf(LedgerIntentError);
    expect(err.message).to.match(
      /not sent\. Applied before it: ConfigMap\/one \(change ledger entry chg_2_0000000a\)\. The objects after it were not applied$/,
    );
    expect(sent).to.deep.equal(['one']);
  });

  describe('recoveredRecord: the outcome from the object as read at recovery', () => {
    async function openIntent(replicas: number): Promise<ChangeEntry> {
      ledger.failAppend = (r) => (r.type !== 'intent' ? new Error('svc was killed here') : undefined);
      await recorder.write(context(), await planned(replicas), async () => undefined);
      ledger.failAppend = undefined;
      return (await ledger.openIntents())[0];
    }

    it('the live object as intended: applied, with after, resourceVersionAfter and an inverse, as after an answered write', async () => {
      const intent = await openIntent(3);
      await cluster.patch(ref, { spec: { replicas: 3 } });
      const r = recoveredRecord(intent, { object: await cluster.get(ref) });
      expect(r).to.deep.include({ type: 'change', intentId: intent.id, outcome: { status: 'applied' }, resourceVersionAfter: '101', tool: 'operate' });
      expect(r.recovery!.finding).to.equal('matches');
      expect(r.inverse).to.deep.equal({ method: 'patch', patchType: 'merge', body: { spec: { replicas: 1 } } });
      expect(r.after).to.deep.include({ resourceVersion: '101' });
    });

    it('the object as before (same resourceVersion): failed, the write did not take effect; no inverse', async () => {
      const intent = await openIntent(3);
      const r = recoveredRecord(intent, { object: await cluster.get(ref) });
      expect(r.outcome.status).to.equal('failed');
      expect(r.recovery!.finding).to.equal('unchanged');
      expect(r.inverse).to.equal(null);
    });

    it('changed otherwise (someone scaled to 5 meanwhile): unknown, never applied', async () => {
      const intent = await openIntent(3);
      await cluster.patch(ref, { spec: { replicas: 5 } });
      const r = recoveredRecord(intent, { object: await cluster.get(ref) });
      expect(r.outcome).to.deep.include({ status: 'unknown' });
      expect(r.recovery!.finding).to.equal('differs');
      expect(r.inverse).to.equal(null);
    });

    it('gone (a patch), unreadable: unknown; a delete whose object is gone: applied with the create inverse', async () => {
      const intent = await openIntent(3);
      expect(recoveredRecord(intent, { object: null }).outcome.status).to.equal('unknown');
      const unreadable = recoveredRecord(intent, { error: 'deployments.apps "web" is forbidden' });
      expect(unreadable.outcome).to.deep.include({ status: 'unknown' });
      expect(unreadable.recovery).to.deep.include({ finding: 'unreadable' });
      const deleteIntent: ChangeEntry = { ...intent, change: { method: 'delete' } };
      const gone = recoveredRecord(deleteIntent, { object: null });
      expect(gone.outcome.status).to.equal('applied');
      expect(gone.after).to.equal(null);
      expect(gone.inverse).to.deep.include({ method: 'create' });
      expect(recoveredRecord(deleteIntent, { object: await cluster.get(ref) }).outcome.status).to.equal('failed');
    });
  });

  describe('RecoverIntents', () => {
    const make = (graceMs = 120_000) => new RecoverIntents(ledger, cluster, recorder, clock, logger, graceMs);

    async function killedAfterCommit(): Promise<ChangeEntry> {
      ledger.failAppend = (r) => (r.type !== 'intent' ? new Error('killed') : undefined);
      await recorder.write(context(), await planned(3), () => cluster.patch(ref, { spec: { replicas: 3 } }));
      ledger.failAppend = undefined;
      return (await ledger.openIntents())[0];
    }

    it('leaves an intent within the grace period alone, then records the observed outcome once it is past it', async () => {
      const intent = await killedAfterCommit();
      const recovery = make();
      expect(await recovery.recoverNow()).to.deep.include({ recovered: [], waiting: 1 });
      clock.advance(120_000);
      const run = await recovery.recoverNow();
      expect(run.recovered).to.have.length(1);
      const outcome = (await ledger.get(run.recovered[0]))!;
      expect(outcome).to.deep.include({ intentId: intent.id, outcome: { status: 'applied' }, caller: intent.caller, sessionId: intent.sessionId });
      expect(outcome.recovery!.finding).to.equal('matches');
      expect(await ledger.openIntents()).to.deep.equal([]);
      expect(await recovery.recoverNow()).to.deep.include({ recovered: [], waiting: 0 });
      const { anchor, head, records } = await ledger.chain();
      expect(await verifyChain(records, anchor, { head })).to.deep.equal({ ok: true, entries: 2, head });
    });

    it('an intent closed meanwhile by another replica is skipped; a cluster it cannot reach leaves the intent open for the next run', async () => {
      await killedAfterCommit();
      clock.advance(120_000);
      const closedElsewhere = ledger.failAppend;
      ledger.failAppend = () => new ConflictError('Ledger intent chg_1_00000001 is not open');
      expect(await make().recoverNow()).to.deep.include({ recovered: [], failed: 0 });
      ledger.failAppend = closedElsewhere;
      const get = cluster.get.bind(cluster);
      cluster.get = async () => {
        throw new DependencyError('kubernetes', 'the API server did not answer');
      };
      expect(await make().recoverNow()).to.deep.include({ recovered: [], failed: 1 });
      expect(await ledger.openIntents()).to.have.length(1);
      // a refusal is a finding, not an outage
      cluster.get = async () => {
        throw new ForbiddenError('deployments.apps "web" is forbidden');
      };
      const run = await make().recoverNow();
      expect((await ledger.get(run.recovered[0]))!.recovery!.finding).to.equal('unreadable');
      cluster.get = get;
    });

    it('runs at start and every minute (sooner when an intent becomes due), and stops', async () => {
      const recovery = make(5_000);
      recovery.start();
      const settle = async (until: () => Promise<boolean>) => {
        for (let i = 0; i < 100 && !(await until()); i++) await new Promise((r) => setImmediate(r));
      };
      await settle(async () => clock.pendingTimers === 1);
      expect(clock.pendingTimers).to.equal(1);
      await killedAfterCommit();
      clock.advance(INTENT_RECOVERY_INTERVAL_MS);
      await settle(async () => (await ledger.openIntents()).length === 0 && clock.pendingTimers === 1);
      expect(await ledger.openIntents()).to.deep.equal([]);
      await recovery.stop();
      expect(clock.pendingTimers).to.equal(0);
    });
  });
});
