import type { DeliveredFix } from '../gitops/deliver-fix.js';
import type { Owned } from '../../domain/auth/session-owner.js';
import type { RiskLevel } from '../../domain/actions/cluster-action.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import type { OperationPlan } from '../../domain/operations/operation-plan.js';
import type { RolloutReport } from '../actions/await-rollouts.js';
import type { ActionOutcome, DryRunRefusal } from '../actions/execute-actions.js';
import type { Executable } from '../actions/run-once.js';
import type { ExecutionVerification } from '../actions/verify-execution.js';
import type { ProposedAction } from '../actions/proposed-action.js';
import { planDigestOf } from '../../domain/sessions/approval-session.js';

export type { DryRunVerdict, ProposedAction } from '../actions/proposed-action.js';

/** How the read-only investigation before a plan went. */
export interface InvestigationSummary {
  modelCalls: number;
  functionCalls: number;
  /** `final-answer`, or the limit that cut it short (`model-calls`, `tokens`, `deadline`, `provider-error`). */
  stoppedBy: string;
}

export interface Proposal {
  summary: string;
  risk: RiskLevel;
  /** Every dry run accepted and at least one action: executeChoice 1 may run it. */
  executable: boolean;
  actions: ProposedAction[];
  investigation: InvestigationSummary;
  /** ISO 8601. */
  plannedAt: string;
  /** When a GitOps controller manages an object: what a live change means and how to deliver through git. */
  warning?: string;
}

export type { RolloutReport, RolloutState } from '../actions/await-rollouts.js';

export interface ExecutionOutcome {
  /** All actions applied, every rollout finished, and the verdict is not degraded. */
  succeeded: boolean;
  /** false: the dry run at execution time refused an action and nothing was applied. */
  dryRunPassed: boolean;
  refused?: DryRunRefusal;
  actions: ActionOutcome[];
  rollouts: RolloutReport[];
  /** One line of state per object the operation touched, read after the rollouts. */
  objects: { target: ResourceRef; state: string }[];
  /** With delivery git: the commit instead of a live change (then nothing was applied). */
  gitDelivery?: DeliveredFix;
  /** The deterministic verdict after the write (healthy, degraded, unknown), and what was reverted; absent when nothing was applied. */
  health?: ExecutionVerification;
}

/** What an operation session stores. */
export interface OperationState extends Executable<ExecutionOutcome>, Owned {
  intent: string;
  evidence?: string;
  /** Every refinedIntent, oldest first. */
  refinements: string[];
  /** The model's plan, as checked: what execution runs. */
  plan: OperationPlan;
  proposal: Proposal;
}

/** The digest of the plan an operation session proposes (the model's actions and their previews): what executeChoice 1 approves; a refine changes it. */
export function operationPlanDigest(s: Pick<OperationState, 'plan' | 'proposal'>): string {
  return planDigestOf({ actions: s.plan.actions, preview: s.proposal.actions });
}
