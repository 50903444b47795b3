import { expect } from 'chai';
import { executeActions, notRun, type CheckedAction } from '../../../application/actions/execute-actions.js';
import { dryRunOperation, sendOperation } from '../../../application/guarded-write/operation-calls.js';
import { ChangeRecorder, LedgerIntentError, type WriteContext } from '../../../application/ledger/change-recorder.js';
import { rolesUpTo } from '../../../domain/auth/caller.js';
import { toOperation, type ClusterAction, type ClusterOperation } from '../../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import type { ChangeEntry } from '../../../domain/ledger/change-entry.js';
import { FakeChangeLedger } from '../../fakes/fake-change-ledger.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { FakeClock } from '../../support/fake-clock.js';
import { rejection } from '../../support/rejection.js';

const now = new Date('2026-12-03T08:00:00Z');
const common = { risk: 'low' as const, rationale: 'because' };
const deployment = (name: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop', resourceVersion: '1' },
  spec: { replicas: 1, template: { spec: { containers: [{ name, image: `${name}:1` }] } } },
});
const scale = (name: string, replicas: number): ClusterAction => ({
  type: 'scale',
  target: { apiVersion: 'apps/v1', kind: 'Deployment', name, namespace: 'shop' },
  replicas,
  description: `scale ${name}`,
  ...common,
});
const context: WriteContext = {
  caller: { id: 'tokens-file:svc:alice', username: 'alice', groups: [], roles: [...rolesUpTo('operator')], kind: 'tokens-file' },
  tool: 'remediate',
  approval: { mode: 'manual', by: 'alice' },
  ledgerIds: [],
};

describe('application/actions/execute-actions: approved actions sent in order, each recorded, a failure stopping the rest', () => {
  let cluster: FakeCluster;
  let ledger: FakeChangeLedger;
  let recording: { recorder: ChangeRecorder; context: WriteContext };

  beforeEach(() => {
    cluster = new FakeCluster().put(deployment('web'), deployment('api'), deployment('db'));
    ledger = new FakeChangeLedger(new FakeClock());
    recording = { recorder: new ChangeRecorder(ledger, cluster), context: { ...context, ledgerIds: [] } };
  });

  const checked = async (...actions: ClusterAction[]): Promise<CheckedAction[]> =>
    Promise.all(
      actions.map(async (action) => {
        const operation = toOperation(action, now);
        const verdict = await dryRunOperation(cluster, operation);
        return { action, operation, dryRun: { object: verdict.accepted ? verdict.object : ({} as KubeObject), warnings: ['dry-run warning'] } };
      }),
    );
  const send = (op: ClusterOperation, warnings: string[]) => sendOperation(cluster, op, warnings);
  const entries = () => ledger.texts.map((t) => JSON.parse(t) as ChangeEntry);

  it('applies every action in order, each with its own ledger entry (an intent before, the change after)', async () => {
    const report = await executeActions(send, await checked(scale('web', 2), scale('api', 3)), recording);
    expect(report.dryRunPassed).to.equal(true);
    expect(report.outcomes.map((o) => [o.action, o.status])).to.deep.equal([
      [1, 'applied'],
      [2, 'applied'],
    ]);
    expect(report.outcomes[0].kubectl).to.contain('kubectl scale deployment.v1.apps/web');
    expect(cluster.writes.map((w) => w.ref.name)).to.deep.equal(['web', 'api']);
    expect(entries().map((e) => `${e.type}:${e.target.name}`)).to.deep.equal(['intent:web', 'change:web', 'intent:api', 'change:api']);
    expect(report.outcomes.map((o) => o.ledgerId)).to.deep.equal(recording.context.ledgerIds);
    expect(entries()[1].risk).to.equal('low');
  });

  it('stops at a failed write: its safe message and dry-run warnings shown, the actions after it not run and not sent', async () => {
    const failing = { ...scale('gone', 1) } as ClusterAction;
    const actions = await checked(scale('web', 2));
    actions.push({ action: failing, operation: toOperation(failing, now), dryRun: { object: deployment('gone'), warnings: ['gone warning'] } });
    actions.push(...(await checked(scale('db', 4))));
    const report = await executeActions(send, actions, recording);
    expect(report.outcomes.map((o) => o.status)).to.deep.equal(['applied', 'failed', 'not-run']);
    expect(report.outcomes[1].message).to.contain('404 NotFound');
    expect(report.outcomes[1].warnings).to.deep.equal(['gone warning']);
    expect(report.outcomes[2]).to.deep.include({ message: 'an earlier action failed', warnings: ['dry-run warning'] });
    expect(cluster.writes.map((w) => w.ref.name)).to.deep.equal(['web']);
    expect(entries().find((e) => e.type === 'change' && e.target.name === 'gone')!.outcome.status).to.equal('failed');
  });

  it('does not echo an unexpected error from the cluster call', async () => {
    const report = await executeActions(
      async () => {
        throw new Error('socket hang up at 10.0.0.1 with token abc');
      },
      await checked(scale('web', 2)),
      recording,
    );
    expect(report.outcomes[0]).to.deep.include({ status: 'failed', message: 'the cluster call failed unexpectedly' });
  });

  it('stops when the ledger cannot take an intent, naming what was applied before it; nothing after it is sent', async () => {
    ledger.failAppend = (r) => (r.type === 'intent' && r.target.name === 'api' ? new Error('disk full') : undefined);
    const error = await rejection(executeActions(send, await checked(scale('web', 2), scale('api', 3), scale('db', 4)), recording));
    expect(error).to.be.instanceOf(LedgerIntentError);
    expect(error.message).to.contain('disk full').and.contain('Applied before it: 1. scale web (change ledger entry').and.contain('were not run');
    expect(cluster.writes.map((w) => w.ref.name)).to.deep.equal(['web']);
  });

  it('says no action was applied when the first intent fails', async () => {
    ledger.failAppend = () => new Error('disk full');
    const error = await rejection(executeActions(send, await checked(scale('web', 2)), recording));
    expect(error.message).to.contain('disk full');
    expect(cluster.writes).to.deep.equal([]);
  });

  it('notRun reports every action not run, with the refusal', () => {
    const refused = { action: 2, description: 'scale api', reason: 'Conflict', message: 'changed', causes: [] };
    const report = notRun([scale('web', 2), scale('api', 3)], refused);
    expect(report).to.deep.include({ dryRunPassed: false, refused });
    expect(report.outcomes.map((o) => [o.action, o.status])).to.deep.equal([
      [1, 'not-run'],
      [2, 'not-run'],
    ]);
  });
});
