import type { RiskLevel } from '../../domain/actions/cluster-action.js';
import { phaseOf, type ApprovalSessionState } from '../../domain/sessions/approval-session.js';
import type { Session } from '../../domain/sessions/session.js';
import type { OperateOutput } from '../../domain/tools/outputs/operate-output.js';

export type Rollout = NonNullable<OperateOutput['rollout']>;
export type RolloutAnswer = OperateOutput & { rollout: Rollout };

/**
 * A rollout (operate with clusterSelector) as the session store keeps it,
 * shared by every replica like any session: the plan of every cluster, and
 * its one execution (the outcome is the rollout wave by wave) by the
 * approval session's rules.
 */
export interface RolloutState extends ApprovalSessionState<Rollout> {
  intent: string;
  /** Covers every cluster's plan digest: one approval binds them all. */
  planDigest: string;
  proposal: OperateOutput['proposal'];
  /** The waves as planned (each cluster's session and plan digest). */
  rollout: Rollout;
  /** What the second-approver rule reads: every cluster's actions' assessed risks and namespaces. */
  risks: RiskLevel[];
  namespaces: (string | undefined)[];
}

/** The rollout as operate answers it (and `GET /api/v1/sessions/{id}` shows it): its status read from the session's phase. */
export function rolloutView(session: Session<RolloutState>): RolloutAnswer {
  const { state } = session;
  const { execution } = state;
  const rollout = execution?.outcome ?? state.rollout;
  const status = rolloutStatus(state, rollout);
  return {
    sessionId: session.id,
    status,
    intent: state.intent,
    refinements: [],
    planDigest: state.planDigest,
    proposal: state.proposal,
    ...(execution
      ? {
          execution: {
            status: execution.status,
            startedAt: execution.startedAt,
            ...(execution.finishedAt ? { finishedAt: execution.finishedAt } : {}),
            ...(execution.error ? { error: execution.error } : {}),
            ...(execution.approval ? { approval: execution.approval } : {}),
          },
        }
      : {}),
    ...(state.stopped ? { stoppedAt: state.stopped.at } : {}),
    nextStep: nextStepOf(session.id, state, status, rollout),
    rollout,
  };
}

function rolloutStatus(state: RolloutState, rollout: Rollout): OperateOutput['status'] {
  switch (phaseOf(state)) {
    case 'proposed':
      return state.proposal.executable ? 'awaiting_approval' : 'needs_refinement';
    case 'executing':
      return 'executing';
    case 'stopped':
      return 'stopped';
    case 'executed':
      return state.execution?.status === 'failed' || rollout.stoppedAt ? 'execution_failed' : 'executed';
  }
}

function nextStepOf(id: string, state: RolloutState, status: OperateOutput['status'], rollout: Rollout): string {
  const stopped = rollout.stoppedAt;
  switch (status) {
    case 'awaiting_approval':
      return `Review each cluster's session, then execute the whole rollout: {"sessionId":"${id}","executeChoice":1,"planDigest":"${state.planDigest}"}`;
    case 'needs_refinement':
      return `A cluster's plan cannot be executed (see its session); start the rollout again with a corrected intent`;
    case 'executing':
      return `The rollout is executing wave by wave; ask again with {"sessionId":"${id}"} to see where it stands`;
    case 'stopped':
      return 'Nothing was applied in any cluster.';
    default:
      if (stopped)
        return `Stopped at wave ${stopped.wave} (cluster ${stopped.cluster}): ${stopped.reason}. That wave was reverted; later waves were not touched.`;
      if (state.execution?.status === 'failed') return `The rollout failed: ${state.execution.error ?? 'unknown error'}. Look at each cluster's session.`;
      return 'Executed in every cluster, wave by wave, each verified healthy.';
  }
}
