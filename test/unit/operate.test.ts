import { expect } from 'chai';
import type { OperationView } from '../../application/operations/operation-view.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { DomainError, ValidationError } from '../../domain/errors.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { deployment, operateOnFakes, planJson, rolledOut, scaleWeb } from '../support/operate-fixtures.js';
import { rejection } from '../support/rejection.js';

const getWeb = { toolCalls: [{ name: 'get_resource', arguments: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' } }] };

/** A controller that finishes every Deployment rollout at once. */
const settles = (o: KubeObject): KubeObject => (o.kind === 'Deployment' ? { ...o, status: rolledOut((o.spec as { replicas: number }).replicas, 3) } : o);

const setup = operateOnFakes;

describe('Operate (application/operations) on fake ports', () => {
  it('start: reads the live state, proposes the change with kubectl, risk, dry run and diff, and writes nothing', async () => {
    const { operate, cluster, llm, sessions } = setup([getWeb, 'web runs 2 replicas; scale it to 5.', planJson([scaleWeb(5)])]);
    const r = await operate.execute({ intent: 'scale web in x to 5 replicas' });
    expect(r.sessionId).to.match(/^opr_[0-9a-f]{32}$/);
    expect(r.status).to.equal('awaiting_approval');
    expect(r.proposal).to.deep.include({ summary: 'Scale web in x from 2 to 5 replicas.', risk: 'low', executable: true });
    expect(r.proposal.investigation).to.deep.equal({ modelCalls: 3, functionCalls: 1, stoppedBy: 'final-answer' });
    expect(r.proposal.actions).to.have.length(1);
    expect(r.proposal.actions[0]).to.deep.include({
      action: 1,
      type: 'scale',
      risk: 'low',
      effect: 'update',
      dryRun: { accepted: true },
      kubectl: 'kubectl scale deployment.v1.apps/web -n x --replicas=5',
      diff: [{ path: 'spec.replicas', from: 2, to: 5 }],
    });
    expect(r.nextStep).to.contain('"executeChoice":1');
    expect(cluster.writes).to.deep.equal([]);
    expect(cluster.calls).to.include('dryRunPatch');
    expect(sessions.records.size).to.equal(1);
    // the model saw the intent only as delimited data, and the live object through the read-only function
    expect(llm.calls[0].messages[0].content).not.to.contain('scale web in x');
    expect(llm.calls[0].messages[1].content).to.contain('<data name="intent">\nscale web in x to 5 replicas\n</data>');
    expect(llm.calls[0].options.tools!.map((t) => t.name)).to.not.include.members(['apply', 'patch', 'delete']);
    expect(JSON.stringify(llm.calls[1].messages)).to.contain('nginx:1.27');
    expect(llm.calls[2].options.responseFormat).to.have.nested.property('jsonSchema.name', 'operation_plan');
  });

  it('a refused dry run is shown, and such a plan is not executed until refined', async () => {
    const { operate, cluster } = setup(['done', planJson([{ ...scaleWeb(5), type: 'patch', patch: { spec: { replicas: -1 } }, replicas: undefined }])]);
    cluster.rejectDryRun = (w) =>
      w.method === 'patch'
        ? {
            accepted: false,
            reason: 'Invalid',
            message: 'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
            causes: [{ field: 'spec.replicas', message: 'Invalid value: -1' }],
          }
        : undefined;
    const r = await operate.execute({ intent: 'set web replicas to -1' });
    expect(r.status).to.equal('needs_refinement');
    expect(r.proposal.executable).to.equal(false);
    expect(r.proposal.actions[0].dryRun).to.deep.equal({
      accepted: false,
      reason: 'Invalid',
      message: 'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      causes: [{ field: 'spec.replicas', message: 'Invalid value: -1' }],
    });
    expect(r.nextStep).to.contain('refinedIntent');
    const e = await rejection<ValidationError>(operate.execute({ sessionId: r.sessionId, executeChoice: 1 }));
    expect(e).to.be.instanceOf(ValidationError);
    expect(e.message).to.contain('cannot be executed').and.contain('must be greater than or equal to 0');
    expect(cluster.writes).to.deep.equal([]);
  });

  it('refinedIntent plans again within the same session, with the earlier plan and the refinement as data', async () => {
    const { operate, llm, sessions } = setup(['ok', planJson([scaleWeb(5)]), 'ok', planJson([scaleWeb(3)], { summary: 'Scale web to 3.' })]);
    const first = await operate.execute({ intent: 'scale web up', evidence: 'p99 latency 2s' });
    const second = await operate.execute({ sessionId: first.sessionId, refinedIntent: 'only 3 replicas' });
    expect(second.sessionId).to.equal(first.sessionId);
    expect(second.refinements).to.deep.equal(['only 3 replicas']);
    expect(second.proposal.summary).to.equal('Scale web to 3.');
    expect(second.proposal.actions[0].diff).to.deep.equal([{ path: 'spec.replicas', from: 2, to: 3 }]);
    const user = llm.calls[2].messages[1].content;
    expect(user)
      .to.contain('<data name="refinements">\n1. only 3 replicas\n</data>')
      .and.contain('<data name="previous_plan">')
      .and.contain('<data name="evidence">\np99 latency 2s');
    expect((await sessions.get('operation', first.sessionId))!.revision).to.equal(2);
  });

  it('executeChoice 1 dry-runs again, applies, waits for the rollout and reports each object', async () => {
    const { operate, cluster } = setup([getWeb, 'ok', planJson([scaleWeb(5)])]);
    cluster.onWrite = settles;
    const { sessionId } = await operate.execute({ intent: 'scale web to 5' });
    const r = await operate.execute({ sessionId, executeChoice: 1 });
    expect(r.status).to.equal('executed');
    const outcome = r.execution!.outcome!;
    expect(outcome.actions).to.deep.equal([
      { action: 1, description: 'Scale web to 5 replicas', kubectl: 'kubectl scale deployment.v1.apps/web -n x --replicas=5', status: 'applied' },
    ]);
    expect(outcome.rollouts).to.have.length(1);
    expect(outcome.rollouts[0]).to.deep.include({ state: 'rolled-out', message: 'successfully rolled out (5 of 5 replicas available)' });
    expect(outcome.objects).to.deep.equal([
      { target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }, state: 'Deployment x/web: ready 5/5, updated 5, available 5' },
    ]);
    expect(cluster.writes.map((w) => [w.method, w.body])).to.deep.equal([['patch', { spec: { replicas: 5 } }]]);
    const order = cluster.calls.filter((c) => /^(dryRun|patch|waitFor)/.test(c));
    expect(order).to.deep.equal(['dryRunPatch', 'dryRunPatch', 'patch', 'waitFor']);
  });

  it('a rollout that does not finish says how to roll back: the previous values as a patch and kubectl rollout undo', async () => {
    const { operate, cluster } = setup(['ok', planJson([scaleWeb(5)])], { rollout: { timeoutMs: 50, intervalMs: 10 } });
    cluster.onWrite = (o) => ({ ...o, status: rolledOut(2, 3) }); // the controller never gets past 2
    const { sessionId } = await operate.execute({ intent: 'scale web to 5' });
    const r = await operate.execute({ sessionId, executeChoice: 1 });
    expect(r.status).to.equal('execution_failed');
    const rollout = r.execution!.outcome!.rollouts[0];
    expect(rollout.state).to.equal('timed-out');
    expect(rollout.message).to.contain('2 of 5 new replicas updated');
    expect(rollout.rollback!.patch).to.deep.equal({ spec: { replicas: 2 } });
    expect(rollout.rollback!.kubectlUndo).to.equal('kubectl rollout undo deployment/web -n x');
    expect(r.nextStep).to.contain('kubectl rollout undo deployment/web -n x');
  });

  it('a rollout that failed is reported as failed with the same advice', async () => {
    const { operate, cluster } = setup([
      'ok',
      planJson([
        { ...scaleWeb(), type: 'patch', replicas: undefined, patch: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:nope' }] } } } } },
      ]),
    ]);
    cluster.onWrite = (o) => ({
      ...o,
      status: {
        ...rolledOut(2, 3),
        conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "web-2" has timed out progressing.' }],
      },
    });
    const { sessionId, proposal } = await operate.execute({ intent: 'use image nginx:nope' });
    // a strategic merge patch that names one container's image changes only that image: the port and the sidecar stay
    expect(proposal.actions[0].diff.map((d) => d.path)).to.deep.equal(['spec.template.spec.containers[name=web].image']);
    const r = await operate.execute({ sessionId, executeChoice: 1 });
    const rollout = r.execution!.outcome!.rollouts[0];
    expect(rollout).to.deep.include({ state: 'failed', message: 'rollout failed: ReplicaSet "web-2" has timed out progressing.' });
    expect((rollout.rollback!.patch as any).spec.template.spec.containers).to.deep.equal((deployment().spec as any).template.spec.containers);
  });

  it('a dry run refused at execution time applies nothing and is reported as dry_run_refused', async () => {
    const { operate, cluster } = setup([
      'ok',
      planJson([scaleWeb(5), { ...scaleWeb(), type: 'rolloutRestart', replicas: undefined, description: 'Restart web' }]),
    ]);
    const { sessionId, proposal } = await operate.execute({ intent: 'scale web to 5 and restart it' });
    expect(proposal.executable).to.equal(true);
    cluster.rejectDryRun = () => ({ accepted: false, reason: 'Forbidden', message: 'deployments.apps "web" is forbidden: quota', causes: [] });
    const r = await operate.execute({ sessionId, executeChoice: 1 });
    expect(r.status).to.equal('dry_run_refused');
    expect(r.execution!.outcome!.refused).to.deep.include({ action: 1, reason: 'Forbidden', message: 'deployments.apps "web" is forbidden: quota' });
    expect(r.execution!.outcome!.actions.map((a) => a.status)).to.deep.equal(['not-run', 'not-run']);
    expect(cluster.writes).to.deep.equal([]);
  });

  it('an apply of an object that does not exist yet is a create, diffed against nothing', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'flags', namespace: 'x' }, data: { beta: 'on' } };
    const { operate } = setup(['ok', planJson([{ type: 'apply', manifest: cm, description: 'Create flags', risk: 'low', rationale: 'asked' }])]);
    const r = await operate.execute({ intent: 'create a configmap flags with beta=on in x' });
    expect(r.proposal.actions[0]).to.deep.include({ effect: 'create', dryRun: { accepted: true } });
    expect(r.proposal.actions[0].diff).to.deep.include({ path: 'data', to: { beta: 'on' } });
    expect(r.proposal.actions[0].kubectl).to.match(/^kubectl apply --server-side/);
  });

  it('executes at most once: a second executeChoice, and two at the same moment, apply once', async () => {
    const { operate, cluster } = setup(['ok', planJson([scaleWeb(5)])]);
    cluster.onWrite = settles;
    const { sessionId } = await operate.execute({ intent: 'scale web to 5' });
    const both = await Promise.allSettled([operate.execute({ sessionId, executeChoice: 1 }), operate.execute({ sessionId, executeChoice: 1 })]);
    expect(both.map((s) => s.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    const refused = (both.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason as DomainError;
    expect(refused.code).to.equal('VALIDATION_ERROR');
    expect(cluster.writes).to.have.length(1);
    const again = await rejection<ValidationError>(operate.execute({ sessionId, executeChoice: 1 }));
    expect(again.message).to.contain('already executed');
    expect((again.details as { execution: { status: string; outcome: { succeeded: boolean } } }).execution).to.deep.include({ status: 'done' });
    const stop = await rejection<ValidationError>(operate.execute({ sessionId, executeChoice: 2 }));
    expect(stop.message).to.contain('already executed');
    const refine = await rejection<ValidationError>(operate.execute({ sessionId, refinedIntent: 'more' }));
    expect(refine.message).to.contain('cannot be refined');
    const look = await operate.execute({ sessionId });
    expect(look.status).to.equal('executed');
    expect(cluster.writes).to.have.length(1);
  });

  it('executeChoice 2 stops: nothing applied, and the session executes no more', async () => {
    const { operate, cluster } = setup(['ok', planJson([scaleWeb(5)])]);
    const { sessionId } = await operate.execute({ intent: 'scale web to 5' });
    const r: OperationView = await operate.execute({ sessionId, executeChoice: 2 });
    expect(r.status).to.equal('stopped');
    expect(r.nextStep).to.contain('nothing was applied');
    expect((await rejection(operate.execute({ sessionId, executeChoice: 1 }))).message).to.contain('was stopped');
    expect(cluster.writes).to.deep.equal([]);
  });

  it('refuses an unknown, malformed or expired session and a missing intent with 400s that say what to do', async () => {
    const { operate, clock } = setup(['ok', planJson([scaleWeb(5)])]);
    const unknown = await rejection<ValidationError>(operate.execute({ sessionId: `opr_${'0'.repeat(32)}`, executeChoice: 1 }));
    expect(unknown).to.be.instanceOf(ValidationError);
    expect(unknown.message).to.equal(`Unknown or expired session: opr_${'0'.repeat(32)}. Start a new operation with operate and an intent.`);
    expect((await rejection(operate.execute({ sessionId: '../etc/passwd' }))).message).to.contain('(malformed id)');
    const { sessionId } = await operate.execute({ intent: 'scale web to 5' });
    clock.advance(86_400_001);
    expect((await rejection(operate.execute({ sessionId, executeChoice: 1 }))).message).to.contain('Unknown or expired session');
    expect((await rejection(operate.execute({}))).message).to.contain('intent is required');
    expect((await rejection(operate.execute({ executeChoice: 1 }))).message).to.contain('sessionId');
    expect((await rejection(operate.execute({ sessionId, intent: 'x' }))).message).to.contain('refinedIntent');
  });

  it('with no AI provider or no cluster, fails naming OPENAI_API_KEY or KUBECONFIG before any session is created', async () => {
    const noAi: LlmProvider = {
      status: () => ({ configured: false, provider: 'none', hint: 'set OPENAI_API_KEY' }),
      chat: async () => {
        throw new Error('not called');
      },
    };
    const a = setup([], { llm: noAi });
    const e1 = await rejection<DomainError>(a.operate.execute({ intent: 'scale web' }));
    expect(e1.code).to.equal('EXECUTION_ERROR');
    expect(e1.message).to.contain('OPENAI_API_KEY');
    expect(a.sessions.records.size).to.equal(0);
    const b = setup(['never']);
    b.cluster.context = () => '';
    const e2 = await rejection<DomainError>(b.operate.execute({ intent: 'scale web' }));
    expect(e2.message).to.contain('KUBECONFIG');
    expect(b.llm.calls).to.have.length(0);
    expect(b.sessions.records.size).to.equal(0);
  });

  describe('a hostile model never causes a write', () => {
    it('calls to functions named apply or delete are answered with an error, never run', async () => {
      const { operate, cluster } = setup([
        {
          toolCalls: [
            { name: 'apply', arguments: { manifest: deployment({ replicas: 0 }) } },
            { name: 'delete', arguments: { name: 'web' } },
          ],
        },
        { toolCalls: [{ name: 'get_resource', arguments: '{not json' }] },
        'ok',
        planJson([scaleWeb(5)]),
      ]);
      const r = await operate.execute({ intent: 'scale web' });
      expect(r.status).to.equal('awaiting_approval');
      expect(cluster.writes).to.deep.equal([]);
      expect(cluster.calls.filter((c) => !/^(get|list|describe|events|logs|dryRun)/.test(c))).to.deep.equal([]);
    });

    it('an answer that is not JSON, then one that breaks the schema, is a 500 with an excerpt, and nothing is stored', async () => {
      const { operate, cluster, sessions } = setup([
        'ok',
        'Sure! I will scale it.',
        JSON.stringify({ summary: 's', risk: 'extreme', actions: [{ type: 'exec', command: 'kubectl delete ns x' }] }),
      ]);
      const e = await rejection<DomainError>(operate.execute({ intent: 'scale web' }));
      expect(e.code).to.equal('EXECUTION_ERROR');
      expect(e.message).to.contain('operation plan').and.contain('after one retry');
      expect(cluster.writes).to.deep.equal([]);
      expect(sessions.records.size).to.equal(0);
    });

    it('endless function calls stop at 30 model calls in all', async () => {
      const { operate, cluster, llm } = setup([], { llm: new FakeLlm([], getWeb) });
      const e = await rejection<DomainError>(operate.execute({ intent: 'scale web' }));
      expect(e.code).to.equal('EXECUTION_ERROR');
      expect(llm.calls).to.have.length(0); // the setup's own llm is unused
      const used = (operate as unknown as { deps: { llm: FakeLlm } }).deps.llm;
      expect(used.calls).to.have.length(30);
      expect(cluster.writes).to.deep.equal([]);
    });
  });
});
