import type { Session } from '../../domain/sessions/session.js';
import type { ExecutionRecord } from '../actions/run-once.js';
import { healthStep as stepOf, type ExecutionVerification } from '../actions/verify-execution.js';

const healthStep = (h: ExecutionVerification) => stepOf(h, 'execution.outcome.health');
import { gitDeliverable } from '../gitops/gitops-gate.js';
import { operationPlanDigest, type ExecutionOutcome, type OperationState, type Proposal } from './operation-state.js';

/** The deliveries a proposal on GitOps-managed objects can be executed with: git only when every change can be committed. */
const deliveries = (state: OperationState) =>
  gitDeliverable(
    state.plan.actions,
    state.proposal.actions.map((a) => a.gitops ?? null),
  )
    ? '"delivery":"git"} or "delivery":"live"'
    : '"delivery":"live"}';

export type OperationStatus =
  'awaiting_approval' | 'needs_refinement' | 'stopped' | 'executing' | 'executed' | 'delivered_to_git' | 'execution_failed' | 'dry_run_refused';

/** What every operate call answers: the session as it stands and the next step in words. */
export interface OperationView {
  sessionId: string;
  status: OperationStatus;
  intent: string;
  refinements: string[];
  /** The digest of the plan as previewed: what executeChoice 1 approves. */
  planDigest: string;
  /** The plan shown for approval (also after execution, for the record). */
  proposal: Proposal;
  /** Present once executeChoice 1 ran. */
  execution?: ExecutionRecord<ExecutionOutcome>;
  stoppedAt?: string;
  nextStep: string;
}

export function operationView(session: Session<OperationState>): OperationView {
  const { state } = session;
  const status = statusOf(state);
  return {
    sessionId: session.id,
    status,
    intent: state.intent,
    refinements: state.refinements,
    planDigest: operationPlanDigest(state),
    proposal: state.proposal,
    ...(state.execution ? { execution: state.execution } : {}),
    ...(state.stopped ? { stoppedAt: state.stopped.at } : {}),
    nextStep: nextStep(session.id, status, state),
  };
}

function statusOf(state: OperationState): OperationStatus {
  if (state.stopped) return 'stopped';
  const run = state.execution;
  if (run) {
    if (run.status === 'running') return 'executing';
    if (run.status === 'failed' || !run.outcome) return 'execution_failed';
    if (!run.outcome.dryRunPassed) return 'dry_run_refused';
    if (run.outcome.gitDelivery) return 'delivered_to_git';
    return run.outcome.succeeded ? 'executed' : 'execution_failed';
  }
  return state.proposal.executable ? 'awaiting_approval' : 'needs_refinement';
}

function nextStep(id: string, status: OperationStatus, state: OperationState): string {
  const refine = `send {"sessionId":"${id}","refinedIntent":"..."} to plan again`;
  switch (status) {
    case 'awaiting_approval':
      return state.proposal.warning
        ? `${state.proposal.warning} Send {"sessionId":"${id}","executeChoice":1,${deliveries(state)}; to stop without changing anything, executeChoice 2; to change the plan, ${refine}.`
        : `Review the actions, their dry-run verdicts and diffs. To apply them send {"sessionId":"${id}","executeChoice":1}; to stop without changing anything, executeChoice 2; to change the plan, ${refine}.`;
    case 'delivered_to_git': {
      const d = state.execution!.outcome!.gitDelivery!;
      return d.pullRequest
        ? `Nothing was changed in the cluster: review and merge ${d.pullRequest.url}; the GitOps controller then applies the change.`
        : `Nothing was changed in the cluster: open a pull request from ${d.branch} into ${d.baseBranch} of ${d.repository} and merge it; the GitOps controller then applies the change.`;
    }
    case 'needs_refinement': {
      const p = state.proposal;
      const why =
        p.actions.length === 0
          ? 'The plan has no action'
          : `Action ${p.actions
              .filter((a) => !a.dryRun.accepted)
              .map((a) => a.action)
              .join(', ')} was refused (by the API server's dry run or svc's checks)`;
      return `${why}, so it cannot be executed: ${refine}, or send executeChoice 2 to stop.`;
    }
    case 'stopped':
      return 'Stopped: nothing was applied. Start a new operation with an intent for another change.';
    case 'executing':
      return `Being executed by another request: send {"sessionId":"${id}"} again to see its outcome.`;
    case 'executed':
      if (state.execution?.outcome?.health?.pending)
        return `Applied; svc is still watching the change (execution.outcome.health.followUp): ${state.execution.outcome.health.summary} Send {"sessionId":"${id}"} later for the final verdict.`;
      if (state.execution?.outcome?.health?.verdict === 'unknown')
        return `Applied; svc could not verify the result (see execution.outcome.health): ${state.execution.outcome.health.summary}`;
      return state.proposal.warning
        ? 'Done, live: every action was applied and every rollout finished, but a GitOps controller manages these objects and will revert the change at its next sync unless its source changes too.'
        : 'Done: every action was applied and every rollout finished. Start a new operation with an intent for another change.';
    case 'dry_run_refused':
      return 'The dry run at execution time refused an action (see execution.outcome.refused); nothing was applied. Start a new operation with an intent to plan against the current state.';
    case 'execution_failed': {
      const health = state.execution?.outcome?.health;
      const undone = health?.verdict === 'degraded' && (health.reverted?.length ?? 0) > 0 && !health.notReverted?.length;
      const rollouts = undone ? [] : (state.execution?.outcome?.rollouts.filter((r) => r.state !== 'rolled-out') ?? []);
      if (health?.verdict === 'degraded' && rollouts.length === 0) return healthStep(health);
      if (rollouts.length === 0)
        return 'An action failed (see execution.outcome.actions); later actions were not run. Start a new operation with an intent to finish or undo the change.';
      const how = rollouts.map(
        (r) =>
          `${r.target.kind} ${r.target.namespace ? `${r.target.namespace}/` : ''}${r.target.name}: ${r.message}${r.rollback ? `; to roll back apply execution.outcome.rollouts[].rollback.patch (operate intent "roll back ${r.target.kind.toLowerCase()} ${r.target.name}", or ${r.rollback.kubectlPatch.split('\n')[0]}), or run ${r.rollback.kubectlUndo}` : ''}`,
      );
      return `${health?.verdict === 'degraded' ? `${healthStep(health)} ` : ''}Not every rollout finished. ${how.join(' | ')}`;
    }
  }
}
