import { expect } from 'chai';
import type { ExecutionOutcome, OperationState, ProposedAction } from '../../../application/operations/operation-state.js';
import { operationPlanDigest } from '../../../application/operations/operation-state.js';
import { operationView, type OperationStatus } from '../../../application/operations/operation-view.js';
import type { ClusterAction } from '../../../domain/actions/cluster-action.js';
import type { Session } from '../../../domain/sessions/session.js';
import { argoMark } from '../../support/git-delivery-kit.js';

const ID = `opr_${'b'.repeat(32)}`;
const AT = '2026-12-02T10:00:00.000Z';
const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const scale: ClusterAction = { type: 'scale', target: web, replicas: 3, description: 'Scale web to 3', risk: 'low', rationale: 'load' };
/** The preview of action n: only what the view reads (its number, its dry run, its GitOps mark) matters here. */
const preview = (action: number, accepted = true, gitops?: ReturnType<typeof argoMark>): ProposedAction =>
  ({
    action,
    type: 'scale',
    description: 'Scale web to 3',
    risk: 'low',
    rationale: 'load',
    target: web,
    kubectl: 'kubectl scale',
    effect: 'update',
    dryRun: accepted ? { accepted: true } : { accepted: false, reason: 'Invalid', message: 'no' },
    diff: [],
    ...(gitops ? { gitops } : {}),
  }) as ProposedAction;
const BASE: OperationState = {
  intent: 'scale web to 3',
  refinements: ['only web'],
  plan: { summary: 'Scale web', risk: 'low', actions: [scale] },
  proposal: {
    summary: 'Scale web',
    risk: 'low',
    executable: true,
    actions: [preview(1)],
    investigation: { modelCalls: 1, functionCalls: 0, stoppedBy: 'final-answer' },
    plannedAt: AT,
  },
};
const outcome = (over: Partial<ExecutionOutcome> = {}): ExecutionOutcome => ({
  succeeded: true,
  dryRunPassed: true,
  actions: [],
  rollouts: [],
  objects: [],
  ...over,
});
const ran = (o: ExecutionOutcome | undefined, status: 'done' | 'failed' = 'done'): Partial<OperationState> => ({
  execution: { status, startedAt: AT, finishedAt: AT, ...(o ? { outcome: o } : {}) },
});
const session = (over: Partial<OperationState> = {}): Session<OperationState> => ({
  id: ID,
  kind: 'operation',
  state: { ...BASE, ...over },
  revision: 1,
  createdAt: Date.parse(AT),
  updatedAt: Date.parse(AT),
  expiresAt: Date.parse(AT) + 86_400_000,
});
const delivered = {
  repository: 'https://github.com/team/shop',
  branch: `svc/${ID}`,
  baseBranch: 'main',
  commit: 'f00d',
  changed: true,
  files: ['apps/web.yaml'],
};
const stuck = {
  target: web,
  state: 'timed-out',
  message: 'not ready in 60 s',
  waitedMs: 60_000,
  rollback: { patch: {}, kubectlPatch: 'kubectl patch deployment web -p ...', kubectlUndo: 'kubectl rollout undo deployment/web' },
};

/** Each phase of an operation, and each outcome, with the status and the next step a caller is told. */
const CASES: [string, Partial<OperationState>, OperationStatus, RegExp][] = [
  ['proposed', {}, 'awaiting_approval', new RegExp(`^Review the actions.*\\{"sessionId":"${ID}","executeChoice":1\\}; to stop .*executeChoice 2`)],
  [
    'proposed on a GitOps-managed object, deliverable through git',
    { proposal: { ...BASE.proposal, warning: 'Argo CD manages web.', actions: [preview(1, true, argoMark())] } },
    'awaiting_approval',
    /^Argo CD manages web\. Send .*"executeChoice":1,"delivery":"git"\} or "delivery":"live"/,
  ],
  [
    'proposed on a managed object whose git source is unknown',
    { proposal: { ...BASE.proposal, warning: 'Flux manages web.', actions: [preview(1, true, { controller: 'flux', owner: 'HelmRelease x/web' })] } },
    'awaiting_approval',
    /"executeChoice":1,"delivery":"live"\}; to stop/,
  ],
  [
    'a plan without actions',
    { proposal: { ...BASE.proposal, executable: false, actions: [] } },
    'needs_refinement',
    /^The plan has no action, so it cannot be executed/,
  ],
  [
    'a plan with a refused dry run',
    { proposal: { ...BASE.proposal, executable: false, actions: [preview(1), preview(2, false)] } },
    'needs_refinement',
    /^Action 2 was refused .*"refinedIntent":"\.\.\."\} to plan again, or send executeChoice 2/,
  ],
  ['stopped', { stopped: { at: AT } }, 'stopped', /^Stopped: nothing was applied/],
  ['executing', { execution: { status: 'running', startedAt: AT } }, 'executing', new RegExp(`send \\{"sessionId":"${ID}"\\} again`)],
  ['executed', ran(outcome()), 'executed', /^Done: every action was applied/],
  [
    'executed live on a managed object',
    { ...ran(outcome()), proposal: { ...BASE.proposal, warning: 'w' } },
    'executed',
    /will revert the change at its next sync/,
  ],
  [
    'executed, still watched',
    ran(outcome({ health: { verdict: 'healthy', summary: 'Ready 1/3.', pending: true } as never })),
    'executed',
    /^Applied; svc is still watching the change .*Ready 1\/3\. Send/,
  ],
  [
    'executed, unverified',
    ran(outcome({ health: { verdict: 'unknown', summary: 'No metrics.' } as never })),
    'executed',
    /^Applied; svc could not verify the result.*No metrics\./,
  ],
  [
    'delivered with a pull request',
    ran(outcome({ gitDelivery: { ...delivered, pullRequest: { url: 'https://github.com/team/shop/pull/7', number: 7, existing: false } } })),
    'delivered_to_git',
    /review and merge https:\/\/github\.com\/team\/shop\/pull\/7/,
  ],
  [
    'delivered without a pull request',
    ran(outcome({ gitDelivery: delivered })),
    'delivered_to_git',
    new RegExp(`open a pull request from svc/${ID} into main of`),
  ],
  ['refused by the dry run at execution', ran(outcome({ succeeded: false, dryRunPassed: false })), 'dry_run_refused', /^The dry run at execution time refused/],
  ['failed without an outcome', ran(undefined, 'failed'), 'execution_failed', /^An action failed .*later actions were not run/],
  [
    'failed on a stuck rollout',
    ran(outcome({ succeeded: false, rollouts: [stuck as never] })),
    'execution_failed',
    /^Not every rollout finished\. Deployment shop\/web: not ready in 60 s; to roll back .*kubectl rollout undo deployment\/web$/,
  ],
  [
    'failed, degraded and reverted',
    ran(
      outcome({ succeeded: false, rollouts: [stuck as never], health: { verdict: 'degraded', summary: 'Errors doubled; reverted.', reverted: [{}] } as never }),
    ),
    'execution_failed',
    /^Errors doubled; reverted\. See execution\.outcome\.health for the evidence\.$/,
  ],
];

describe('operationView: what every operate call answers', () => {
  for (const [what, over, status, next] of CASES)
    it(`${what}: ${status}, and the next step says what to send`, () => {
      const view = operationView(session(over));
      expect(view.status).to.equal(status);
      expect(view.nextStep).to.match(next);
    });

  it('carries the session, its intent and refinements, the digest executeChoice 1 approves, and the stop time only once stopped', () => {
    const view = operationView(session());
    expect(view).to.deep.include({ sessionId: ID, intent: 'scale web to 3', refinements: ['only web'], planDigest: operationPlanDigest(BASE) });
    expect(view).not.to.have.property('stoppedAt');
    expect(view).not.to.have.property('execution');
    expect(operationView(session({ stopped: { at: AT } })).stoppedAt).to.equal(AT);
  });

  it('a stopped session answers stopped whatever ran before (the stop is the last word)', () => {
    expect(operationView(session({ ...ran(outcome()), stopped: { at: AT } })).status).to.equal('stopped');
  });
});
