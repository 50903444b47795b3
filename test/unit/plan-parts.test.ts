import { expect } from 'chai';
import { cannotExecute, refusals, type ProposedAction } from '../../application/actions/proposed-action.js';
import { RunBudget } from '../../application/ai/run-budget.js';
import type { ToolLoopResult } from '../../application/ai/tool-loop.js';
import { stepOf } from '../../application/guarded-write/step-failure.js';
import { operationPlanDigest, type OperationState } from '../../application/operations/operation-state.js';
import { remediationPlanDigest, type RemediationState } from '../../application/remediation/remediation-state.js';
import { runSummary } from '../../application/remediation/run-summary.js';
import { DependencyError, ExecutionError, ForbiddenError, NotConfiguredError, ValidationError } from '../../domain/errors.js';

const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };
const action = (n: number, dryRun: ProposedAction['dryRun']): ProposedAction => ({
  action: n,
  type: 'scale',
  description: `Scale web to ${n}`,
  risk: 'low',
  rationale: 'r',
  target,
  kubectl: `kubectl scale deployment.v1.apps/web -n x --replicas=${n}`,
  effect: 'update',
  dryRun,
  diff: [],
});
const ACCEPTED: ProposedAction['dryRun'] = { accepted: true };
const INVALID: ProposedAction['dryRun'] = { accepted: false, reason: 'Invalid', message: 'spec.replicas must be >= 0', causes: [] };
const RBAC: ProposedAction['dryRun'] = { accepted: false, reason: 'Forbidden', message: 'alice cannot patch deployments', causes: [], byCaller: true };

describe('proposed actions that cannot run (application/actions/proposed-action.ts)', () => {
  it('words every refused action, skipping the accepted ones', () => {
    expect(refusals([action(1, ACCEPTED), action(2, INVALID), action(3, RBAC)])).to.equal(
      'action 2 (Scale web to 2) was refused (Invalid): spec.replicas must be >= 0; action 3 (Scale web to 3) was refused (Forbidden): alice cannot patch deployments',
    );
    expect(refusals([action(1, ACCEPTED)])).to.equal('');
  });

  it('is 403 when the cluster refused the caller, else 400', () => {
    const byCaller = cannotExecute('no', [action(1, INVALID), action(2, RBAC)]);
    expect(byCaller).to.be.instanceOf(ForbiddenError);
    expect(byCaller.details).to.deep.equal({ reason: 'Forbidden' });
    expect(cannotExecute('no', [action(1, INVALID)])).to.be.instanceOf(ValidationError);
  });
});

describe('stepOf: a pipeline request`s failure as the write`s refusal (application/guarded-write/step-failure.ts)', () => {
  const cases: [string, Error, string | undefined][] = [
    ['an execution error', new ExecutionError('the server rejected it'), 'Rejected'],
    ['a validation error', new ValidationError('bad target'), 'Invalid'],
    ['a forbidden error', new ForbiddenError('rbac'), 'Forbidden'],
    ['a dependency error', new DependencyError('kubernetes', 'timed out'), 'Unavailable'],
    ['no cluster configured', new NotConfiguredError('The Kubernetes cluster', 'set KUBECONFIG'), undefined],
    ['a bug', new TypeError('x is undefined'), undefined],
  ];
  for (const [what, error, reason] of cases)
    it(`${what}: ${reason ?? 'throws'}`, async () => {
      const step = stepOf(() => Promise.reject(error));
      if (!reason) {
        const thrown = await step.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(thrown).to.equal(error);
        return;
      }
      const got = await step;
      expect(got).to.have.nested.property('refusal.reason', reason);
      expect(got).to.have.nested.property('refusal.error', error);
      if (reason === 'Forbidden') expect(got).to.have.nested.property('refusal.byCaller', true);
      if (reason === 'Unavailable') expect(got).to.have.nested.property('refusal.message', `the preview could not be made: ${error.message}`);
    });

  it('a step that works answers its value', async () => {
    expect(await stepOf(async () => 42)).to.deep.equal({ value: 42 });
  });
});

describe('plan digests of the two approval sessions (remediation-state.ts, operation-state.ts)', () => {
  const plan = { summary: 's', risk: 'low', actions: [{ type: 'scale', target, replicas: 5, description: 'd', risk: 'low', rationale: 'r' }] };
  const proposal = { actions: [action(1, ACCEPTED)] };

  it('an operation`s digest covers the plan and its preview: any change to either changes it', () => {
    const base = operationPlanDigest({ plan, proposal } as unknown as OperationState);
    expect(base).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(operationPlanDigest({ plan, proposal } as unknown as OperationState)).to.equal(base);
    const replicas = { ...plan, actions: [{ ...plan.actions[0], replicas: 6 }] };
    expect(operationPlanDigest({ plan: replicas, proposal } as unknown as OperationState)).to.not.equal(base);
    const risk = { actions: [{ ...proposal.actions[0], risk: 'high' }] };
    expect(operationPlanDigest({ plan, proposal: risk } as unknown as OperationState)).to.not.equal(base);
  });

  it('a remediation has a digest only with an analysis; its preview is part of it', () => {
    expect(remediationPlanDigest({} as RemediationState)).to.equal(undefined);
    const analysis = { actions: plan.actions } as unknown as RemediationState['analysis'];
    const withPreview = remediationPlanDigest({ analysis, preview: proposal.actions });
    expect(withPreview).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(remediationPlanDigest({ analysis })).to.not.equal(withPreview);
  });
});

describe('runSummary: a tool loop as the session keeps it (application/remediation/run-summary.ts)', () => {
  const loop = (over: Partial<ToolLoopResult> = {}): ToolLoopResult => ({
    text: '',
    stoppedBy: 'final-answer',
    calls: 2,
    functionCalls: Array.from({ length: 45 }, (_, i) => ({
      name: 'get_resource',
      arguments: `{"n":${i}}`,
      ok: i !== 0,
      ...(i === 0 ? { error: 'e'.repeat(400) } : {}),
    })),
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
    model: 'm',
    messages: [],
    ...over,
  });

  it('lists at most 40 calls (the count says all), cuts errors, and counts the budget', () => {
    const budget = new RunBudget({ maxCalls: 5, maxTokens: 1000, timeoutMs: 60_000 });
    budget.record({ inputTokens: 10, outputTokens: 3, cacheReadTokens: 0, cacheCreationTokens: 0 });
    const s = runSummary(loop(), budget);
    expect(s.functionsCalled).to.have.length(40);
    expect(s.functionCallCount).to.equal(45);
    expect(s.functionsCalled[0].error).to.have.length(300);
    expect(s).to.deep.include({ modelCalls: 1, stoppedBy: 'final-answer', tokens: { input: 10, output: 3 } });
    expect(s).to.not.have.property('limit');
  });

  it('says in words which limit stopped the run, or the provider`s failure, or the problem given', () => {
    const budget = new RunBudget({ maxCalls: 5, maxTokens: 1000, timeoutMs: 60_000 });
    expect(runSummary(loop({ stoppedBy: 'model-calls' }), budget).limit).to.equal('the limit of 5 model calls was reached');
    expect(runSummary(loop({ stoppedBy: 'provider-error', error: 'HTTP 500' }), budget).limit).to.equal('the AI provider failed: HTTP 500');
    expect(runSummary(loop({ stoppedBy: 'provider-error' }), budget, 'provider-error', 'no JSON').limit).to.equal('the AI provider failed: no JSON');
    expect(runSummary(loop(), budget, 'final-answer', 'the analysis was unusable').limit).to.equal('the analysis was unusable');
  });
});
