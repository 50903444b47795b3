import type { SessionOwner } from '../../domain/auth/session-owner.js';
import { nextSteps, SOLUTION_STATUSES, solutionStatus, type NextStep } from '../../domain/deployment/workflow.js';
import type { SolutionState } from '../../domain/deployment/solution.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import { SESSION_TOOL_OF } from '../../domain/tools/tool-definitions.js';
import { operationView, type OperationStatus } from '../operations/operation-view.js';
import type { OperationState } from '../operations/operation-state.js';
import { rolloutView, type RolloutState } from '../operations/rollout-view.js';
import type { RemediationState } from '../remediation/remediation-state.js';
import { remediationView, type RemediationStatus } from '../remediation/remediation-view.js';

/** The tool each kind of session belongs to (solutions: the deployment flow recommend starts). */
export type SessionTool = 'remediate' | 'operate' | 'recommend';
/** From the definitions' `session`; a test holds them to SessionTool. */
export const SESSION_TOOLS = SESSION_TOOL_OF as Readonly<Record<SessionKind, SessionTool>>;

// keyed by every status, so a status added to a view does not compile until it is listed here
const REMEDIATION: Record<RemediationStatus, true> = {
  awaiting_approval: true,
  executing: true,
  executed: true,
  delivered_to_git: true,
  not_executed: true,
  execution_failed: true,
  stopped: true,
  no_action: true,
  investigation_incomplete: true,
};
const OPERATION: Record<OperationStatus, true> = {
  awaiting_approval: true,
  needs_refinement: true,
  stopped: true,
  executing: true,
  executed: true,
  delivered_to_git: true,
  execution_failed: true,
  dry_run_refused: true,
};
/** Every status a session of any kind can have: what `?status=` accepts. */
export const SESSION_STATUSES: readonly string[] = [
  ...new Set([...Object.keys(REMEDIATION), ...Object.keys(OPERATION), ...Object.keys(SOLUTION_STATUSES)]),
].sort();

/** A session in a list: what it is about, where it stands, and what to do next. */
export interface SessionSummary {
  sessionId: string;
  kind: SessionKind;
  tool: SessionTool;
  status: string;
  /** The issue (remediation) or the intent (operation, rollout, solution). */
  subject: string;
  /** Who started it; absent on a session stored before sessions recorded their owner. */
  owner?: SessionOwner;
  /** Remediation and operation: the `nextStep` text the tool answered. Solution: the first of `nextSteps` in words. */
  nextStep: string;
  /** Solution only: the `nextSteps` the deployment tools answer for it. */
  nextSteps?: NextStep[];
  /** ISO 8601 */
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
}

/** One session: its summary and `view`, what its tool answers about it (remediate or operate called with the sessionId alone; for a solution, its state). */
export interface SessionDetail extends SessionSummary {
  view: unknown;
}

type AnySession = Session<RemediationState> | Session<OperationState> | Session<RolloutState> | Session<SolutionState>;

/** The session as the sessions routes show it; `withView` adds what its tool answers about it. */
export function describeSession(session: Session<unknown>, withView: true): SessionDetail;
export function describeSession(session: Session<unknown>, withView?: false): SessionSummary;
export function describeSession(session: Session<unknown>, withView = false): SessionSummary | SessionDetail {
  const s = session as AnySession;
  const times = {
    createdAt: new Date(s.createdAt).toISOString(),
    updatedAt: new Date(s.updatedAt).toISOString(),
    expiresAt: new Date(s.expiresAt).toISOString(),
  };
  const base = { sessionId: s.id, kind: s.kind, tool: SESSION_TOOLS[s.kind], ...(s.state.owner ? { owner: s.state.owner } : {}) };
  if (s.kind === 'remediation') {
    const view = remediationView(s as Session<RemediationState>);
    return { ...base, status: view.status, subject: view.issue, nextStep: view.nextStep, ...times, ...(withView ? { view } : {}) };
  }
  if (s.kind === 'operation' || s.kind === 'rollout') {
    const view = s.kind === 'operation' ? operationView(s as Session<OperationState>) : rolloutView(s as Session<RolloutState>);
    return { ...base, status: view.status, subject: view.intent, nextStep: view.nextStep, ...times, ...(withView ? { view } : {}) };
  }
  const state = (s as Session<SolutionState>).state;
  const steps = nextSteps(s.id, state);
  const summary = { ...base, status: solutionStatus(state), subject: state.intent, nextStep: inWords(steps, state), nextSteps: steps, ...times };
  if (!withView) return summary;
  const { owner: _owner, ...view } = state;
  return { ...summary, view: { solutionId: s.id, ...view } };
}

function inWords(steps: NextStep[], state: SolutionState): string {
  const first = steps[0];
  if (first) return `${first.why}: call ${first.tool} with ${JSON.stringify(first.params)}`;
  if (state.gitDelivery)
    return state.gitDelivery.pullRequestUrl
      ? `Review and merge ${state.gitDelivery.pullRequestUrl}; Argo CD or Flux then applies it to the cluster`
      : `Open a pull request from ${state.gitDelivery.branch} and merge it; Argo CD or Flux then applies it`;
  return 'Nothing more to do: the solution is deployed and ready.';
}
