import { createHash } from 'node:crypto';
import type { RiskLevel } from '../actions/cluster-action.js';
import type { Caller } from '../auth/caller.js';
import {
  isOwner,
  ownerOf,
  requireOwnerOrAdmin,
  requireSecondApprover,
  secondApproverReason,
  type ApprovalPolicy,
  type Owned,
  type SessionOwner,
} from '../auth/session-owner.js';
import { ConflictError, ValidationError } from '../errors.js';
import { canonicalJson } from '../ledger/canonical-json.js';

/**
 * The one approval-session lifecycle of remediate and operate. Its phases,
 * read from the stored state by `phaseOf`: `proposed` (a plan with its
 * planDigest; a refine makes a new plan and digest, so an approval of the old
 * one no longer matches), `executing` (executeChoice 1 approved by the
 * starter, an admin or a second approver, bound to the digest they saw, and
 * the execution claimed once), `executed` (done or failed) and `stopped`.
 * Approval is a step, not a phase: `approvePlan` judges it and the approval is
 * recorded with the execution. The refusals of a step on a closed session,
 * the stop rule and the second-approver rule live here, not in each tool.
 */
export type ApprovalPhase = 'proposed' | 'executing' | 'executed' | 'stopped';

/** Who approved which plan: recorded with the execution. */
export interface Approval {
  by: SessionOwner;
  planDigest: string;
}

/** What a session records about its one execution. */
export interface ExecutionRecord<O> {
  status: 'running' | 'done' | 'failed';
  startedAt: string;
  finishedAt?: string;
  outcome?: O;
  /** With `failed`: why (a safe message). */
  error?: string;
  /** Who approved the plan that ran, and its digest (absent on sessions stored before digests). */
  approval?: Approval;
}

export interface Executable<O> {
  execution?: ExecutionRecord<O>;
  stopped?: { at: string };
}

/** The phase a stored session is in (see the lifecycle above). */
export function phaseOf(state: Executable<unknown>): ApprovalPhase {
  if (state.execution) return state.execution.status === 'running' ? 'executing' : 'executed';
  return state.stopped ? 'stopped' : 'proposed';
}

/**
 * The digest of a plan as previewed: SHA-256 over the canonical JSON of what
 * will be sent and what was shown (the actions, their targets, computed
 * JSON Patches, pinned versions, diffs and risks). Any change to the plan
 * changes it.
 */
export function planDigestOf(plan: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(plan)).digest('hex')}`;
}

/**
 * The one refusal of a step on a session that was executed (or is being
 * executed) or stopped; the 400 carries the execution record. `step` is what
 * was asked (`executed again`, `stopped`, `refined`); `start` says how to begin anew.
 */
export function closedRefusal(id: string, state: Executable<unknown>, step: string, start: string): ValidationError | undefined {
  const { execution, stopped } = state;
  if (execution?.status === 'running')
    return new ValidationError(
      `Session ${id} is being executed by another request; it cannot be ${step}: ask again with the same sessionId (and no executeChoice) to see its outcome`,
      { execution },
    );
  if (execution)
    return new ValidationError(
      `Session ${id} was already executed (${execution.status} at ${execution.finishedAt ?? execution.startedAt}); a session executes at most once, it cannot be ${step}. ${start}`,
      { execution },
    );
  if (stopped) return new ValidationError(`Session ${id} was stopped at ${stopped.at}; nothing was applied, it cannot be ${step}. ${start}`);
  return undefined;
}

/** What a lifecycle step decides: a new state to store, the state as it is (nothing to store), or a refusal. */
export type Decision<S> = { next: S } | { unchanged: S } | { refused: ValidationError };

/**
 * Stop (executeChoice 2): a proposed session becomes stopped at `at`, nothing
 * applied; a stopped one stays as it was, so stopping twice answers the same
 * in every session tool; an executing or executed one is refused (the 400
 * carries its execution record). `start` says how to begin anew.
 */
export function stopDecision<S extends Executable<unknown>>(id: string, state: S, at: string, start: string): Decision<S> {
  switch (phaseOf(state)) {
    case 'proposed':
      return { next: { ...state, stopped: { at } } };
    case 'stopped':
      return { unchanged: state };
    default:
      return { refused: closedRefusal(id, state, 'stopped', start)! };
  }
}

/** The plan an approval is about: its digest and, from the write guard, each action's assessed risk and namespace. */
export interface PlanUnderApproval {
  planDigest: string;
  risks: readonly RiskLevel[];
  namespaces: readonly (string | undefined)[];
}

/**
 * Approves executing a session's plan (executeChoice 1), or throws:
 * 409 CONFLICT when `sentDigest` is not the plan's digest (the plan changed
 * since the caller read it, e.g. a refine); with the second-approver rule on
 * and the plan needing it (by svc's assessed risks, never the model's
 * labels), 403 for the starter and 400 for another caller who sent no
 * digest (a second approver approves the plan they read); otherwise only
 * the starter or an admin (403).
 */
export function approvePlan(input: {
  sessionId: string;
  state: Owned;
  plan: PlanUnderApproval;
  caller: Caller;
  policy: ApprovalPolicy;
  sentDigest?: string;
  how?: string;
  /** How the messages name what is approved (default `Session <id>`; the ledger's revert: `The revert of change <id>`). */
  subject?: string;
}): Approval {
  const { sessionId, state, plan, caller, policy, sentDigest } = input;
  const subject = input.subject ?? `Session ${sessionId}`;
  if (sentDigest !== undefined && sentDigest !== plan.planDigest)
    throw new ConflictError(
      input.subject
        ? `${subject}: the plan changed since it was previewed (planDigest ${sentDigest} was sent, the plan is now ${plan.planDigest}); nothing was written: preview it again and send the new planDigest`
        : `Session ${sessionId}'s plan changed since it was read (planDigest ${sentDigest} was sent, the plan is now ${plan.planDigest}); nothing was executed: look at the session again and approve the plan as it is`,
      { planDigest: plan.planDigest },
    );
  const approval = { by: ownerOf(caller), planDigest: plan.planDigest };
  const why = state.owner !== undefined ? secondApproverReason(policy, plan) : undefined;
  if (why === undefined) {
    requireOwnerOrAdmin(state.owner, caller, sessionId);
    return approval;
  }
  requireSecondApprover(policy, state.owner, caller, sessionId, plan, input.how, input.subject);
  if (sentDigest === undefined && !isOwner(state.owner, caller))
    throw new ValidationError(
      `${subject} needs a second approver (${why}): send the planDigest you reviewed (${plan.planDigest} now)${input.subject ? '' : ' with executeChoice 1'}`,
      { planDigest: plan.planDigest },
    );
  return approval;
}
