import { expect } from 'chai';
import { executeApproved } from '../../application/actions/execute-approved.js';
import type { PolicySource, StoredPolicies } from '../../application/actions/policy-source.js';
import { previewActions } from '../../application/actions/preview-actions.js';
import { previewDeploy } from '../../application/deployment/deploy-checks.js';
import { GuardedWrite } from '../../application/guarded-write/guarded-write.js';
import type { GuardedWriteResult, WriteRequest } from '../../application/guarded-write/write-request.js';
import { ChangeRecorder } from '../../application/ledger/change-recorder.js';
import { RevertChange } from '../../application/ledger/revert-change.js';
import { scopeSecretValues, withinSecretScope } from '../../application/security/secret-scope.js';
import type { ClusterAction } from '../../domain/actions/cluster-action.js';
import { OPEN_WRITE_SCOPE } from '../../domain/actions/write-scope.js';
import { rolesUpTo, type Caller } from '../../domain/auth/caller.js';
import { NO_SECOND_APPROVER } from '../../domain/auth/session-owner.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import type { Solution } from '../../domain/deployment/solution.js';
import type { DomainError } from '../../domain/errors.js';
import { redactObject } from '../../domain/ledger/object-state.js';
import type { NamedPolicy } from '../../domain/orgdata/policy-constraint.js';
import { NO_METRICS } from '../../domain/ports/metrics.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { UNRECORDED } from '../fakes/null-safety.js';
import { FakeClock } from '../support/fake-clock.js';
import { rejection } from '../support/rejection.js';

/** The pipeline, noting every write it checked: a caller that went around it would leave no note. */
class NotingGuard extends GuardedWrite {
  readonly checked: string[] = [];
  override async check(request: WriteRequest, policies: StoredPolicies): Promise<GuardedWriteResult> {
    this.checked.push(`${request.ref.kind} ${request.ref.name}`);
    return super.check(request, policies);
  }
}

const alice: Caller = { id: 'tokens-file:svc:alice', username: 'alice', groups: [], roles: [...rolesUpTo('operator')], kind: 'tokens-file' };
const WEB: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const DB: ResourceRef = { apiVersion: 'v1', kind: 'Secret', name: 'db', namespace: 'shop' };
const STORED = 'stored-password-value';
const web = (replicas: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', resourceVersion: '5' },
  spec: { replicas, template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
});
const db: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', namespace: 'shop', resourceVersion: '7' },
  stringData: { password: STORED },
};
const AT_MOST_TWO: NamedPolicy = { id: 'pol-2', description: 'at most 2 replicas', constraints: [{ kind: 'Deployment', field: 'spec.replicas', maximum: 2 }] };
const BROKEN = 'Deployment web would break policy "at most 2 replicas" (pol-2): spec.replicas must be at most 2, got 5';
const solution: Solution = {
  score: 1,
  description: 'web',
  resources: [
    { apiVersion: 'apps/v1', kind: 'Deployment', namespaced: true, purpose: 'x' },
    { apiVersion: 'v1', kind: 'Secret', namespaced: true, purpose: 'x' },
  ],
  patternsApplied: [],
  policiesRespected: [],
  droppedResources: [],
};
const common = { description: 'change it', rationale: 'asked', risk: 'low' as const };

function world(live: KubeObject) {
  const clock = new FakeClock();
  const cluster = new FakeCluster().put(live);
  const policies = { held: { policies: [] } as StoredPolicies };
  const source: PolicySource = { forText: async () => [], stored: async () => policies.held };
  const guard = new NotingGuard({ reader: cluster, writer: cluster, scope: OPEN_WRITE_SCOPE, policies: source });
  const ledger = new FakeChangeLedger(clock);
  const recorder = new ChangeRecorder(ledger, cluster);
  const revert = new RevertChange(ledger, guard, recorder, { approval: NO_SECOND_APPROVER, metrics: NO_METRICS });
  /** A change recorded in the ledger (sent around the guard, as a fixture; the object answered as the adapter answers it, Secret values `***`), whose undo is then asked for. */
  const recorded = async (ref: ResourceRef, patch: Record<string, unknown>) =>
    (
      await recorder.write(
        { caller: alice, tool: 'operate', approval: { mode: 'manual', by: 'alice' } },
        { target: ref, change: { method: 'patch', patchType: 'merge', body: patch }, dryRun: { accepted: true } },
        async () => redactObject(ref.kind, await cluster.patch(ref, patch, { patchType: 'merge' })) as KubeObject,
      )
    ).ledgerId!;
  return { clock, cluster, policies, guard, revert, recorded };
}

/**
 * The four callers of the pipeline: the preview of remediate and operate,
 * their execute-time re-check, deployManifests and the ledger's revert.
 * Each answers what the pipeline decided, the same way, because each goes
 * through it.
 */
describe('every write goes through the one pipeline: preview, execution, deployManifests and revert answer alike (fakes)', () => {
  it('a policy violation: the same reason and message from each, and nothing written', async () => {
    const scale: ClusterAction = { type: 'scale', target: WEB, replicas: 5, ...common };

    const preview = world(web(1));
    preview.policies.held = { policies: [AT_MOST_TWO] };
    const [proposed] = await previewActions(preview.guard, [scale], new Date(0));
    expect(proposed.dryRun).to.deep.equal({ accepted: false, reason: 'PolicyViolation', message: BROKEN, causes: [] });

    // approved before the policy was stored; the execute-time re-check reads it again
    const execute = world(web(1));
    const approved = await previewActions(execute.guard, [scale], new Date(0));
    expect(approved[0].dryRun.accepted).to.equal(true);
    execute.policies.held = { policies: [AT_MOST_TWO] };
    const report = await executeApproved({ guard: execute.guard, clock: execute.clock }, [scale], approved, UNRECORDED);
    expect(report.refused).to.deep.include({ reason: 'PolicyViolation', message: BROKEN });

    const deploy = world(web(1));
    deploy.policies.held = { policies: [AT_MOST_TWO] };
    const deployed = await previewDeploy(deploy.guard, deploy.cluster, [web(5)], solution);
    expect(deployed.objects[0].refusal).to.deep.equal({ reason: 'PolicyViolation', message: BROKEN });

    // a change from 5 replicas to 1, whose undo would set 5 again
    const undo = world(web(5));
    const id = await undo.recorded(WEB, { spec: { replicas: 1 } });
    undo.policies.held = { policies: [AT_MOST_TWO] };
    const refused = await rejection<DomainError>(undo.revert.execute({ id }, alice));
    expect(refused.message).to.equal(`svc refuses the undo of ${id}: ${BROKEN}`);
    expect(refused.details).to.deep.equal({ reason: 'PolicyViolation' });

    for (const w of [preview, execute, deploy, undo]) expect(w.guard.checked).to.include('Deployment web');
    for (const w of [preview, execute, deploy]) expect(w.cluster.writes).to.deep.equal([]);
    expect(undo.cluster.writes).to.have.length(1); // the fixture's own change, not the undo
  });

  it('the execute-time re-check judges what the dry run returns now: a webhook that makes the pod privileged since approval refuses it (RiskRaised)', async () => {
    const scale: ClusterAction = { type: 'scale', target: WEB, replicas: 2, ...common };
    const execute = world(web(1));
    const approved = await previewActions(execute.guard, [scale], new Date(0));
    expect(approved[0]).to.deep.include({ risk: 'low' });
    // a mutating admission webhook installed since injects a privileged sidecar into what the server would store
    const dryRunPatch = execute.cluster.dryRunPatch.bind(execute.cluster);
    execute.cluster.dryRunPatch = async (ref, patch, options) => {
      const v = await dryRunPatch(ref, patch, options);
      if (!v.accepted) return v;
      const spec = (v.object.spec as { template: { spec: { containers: unknown[] } } }).template.spec;
      spec.containers.push({ name: 'agent', image: 'nginx:1.27', securityContext: { privileged: true } });
      return v;
    };
    const report = await executeApproved({ guard: execute.guard, clock: execute.clock }, [scale], approved, UNRECORDED);
    expect(report.dryRunPassed).to.equal(false);
    expect(report.refused).to.deep.include({ action: 1, reason: 'RiskRaised' });
    expect(report.refused?.message).to.match(/^svc now rates this change high \(.*privileged.*\), above the low approved; nothing was applied/);
    expect(execute.cluster.writes).to.deep.equal([]);
  });

  it("a Secret's stored value echoed by the API server is *** in each one's refusal; a value written shows as *** in each one's diff", async () => {
    await withinSecretScope(async () => {
      const echo = (cluster: FakeCluster) =>
        (cluster.rejectDryRun = () => ({ accepted: false, reason: 'Invalid', message: `value "${STORED}" is not allowed`, causes: [] }));
      const shown = 'value "***" is not allowed';
      const rotate: ClusterAction = { type: 'patch', target: DB, patch: { stringData: { password: 'a-new-password-123' } }, ...common };

      const preview = world(db);
      const [ok] = await previewActions(preview.guard, [rotate], new Date(0));
      expect(ok.diff).to.deep.equal([{ path: 'stringData.password', from: '***', to: '***' }]);
      echo(preview.cluster);
      const [refusedPreview] = await previewActions(preview.guard, [rotate], new Date(0));
      expect(refusedPreview.dryRun).to.deep.include({ reason: 'Invalid', message: shown });

      const execute = world(db);
      const approved = await previewActions(execute.guard, [rotate], new Date(0));
      echo(execute.cluster);
      const report = await executeApproved({ guard: execute.guard, clock: execute.clock }, [rotate], approved, UNRECORDED);
      expect(report.refused).to.deep.include({ reason: 'Invalid', message: shown });

      const deploy = world(db);
      const manifest = { ...db, stringData: { password: 'a-new-password-123' } };
      const deployed = await previewDeploy(deploy.guard, deploy.cluster, [manifest], solution);
      expect(deployed.objects[0].diff).to.deep.equal([{ path: 'stringData.password', from: '***', to: '***' }]);
      echo(deploy.cluster);
      const refusedDeploy = await previewDeploy(deploy.guard, deploy.cluster, [manifest], solution);
      expect(refusedDeploy.objects[0].refusal).to.deep.equal({ reason: 'Invalid', message: shown });

      const undo = world(db);
      const id = await undo.recorded(DB, { metadata: { labels: { rotated: 'yes' } } });
      echo(undo.cluster);
      const refused = await rejection(undo.revert.execute({ id }, alice));
      expect(refused.message).to.equal(`The API server refuses the undo of ${id}: ${shown}`);

      for (const w of [preview, execute, deploy, undo]) expect(w.guard.checked).to.include('Secret db');
      const shownByTheGuard = JSON.stringify([ok.diff, refusedPreview.dryRun, report.refused, deployed.objects, refusedDeploy.objects, refused.message]);
      expect(shownByTheGuard).to.not.include(STORED).and.not.include('a-new-password-123');
      // the value written joined the run's scope: the tool's answer (its kubectl lines included), the ledger and a model never carry it
      expect(scopeSecretValues()).to.include('a-new-password-123');
    });
  });
});
