import { createHash } from 'node:crypto';
import type { RiskLevel } from '../actions/cluster-action.js';
import type { Caller } from '../auth/caller.js';
import {
  isOwner,
  NO_SECOND_APPROVER,
  notOwnerRefusal,
  ownerOf,
  secondApproverRefusal,
  secondApproverReason,
  type ApprovalPolicy,
  type Owned,
  type SessionOwner,
} from '../auth/session-owner.js';
import { ConflictError, ValidationError, type DomainError } from '../errors.js';
import { canonicalJson } from '../ledger/canonical-json.js';

/**
 * The approval session of remediate and operate, as one aggregate: its state
 * (what a tool stores, `ApprovalSessionState`), its phases and the steps that
 * move it, each a pure function returning the new state or a typed refusal
 * (`Decision`); the use cases store what a step decides and do the I/O, they
 * hold no rule of their own.
 *
 * Phases, read from the stored state by `phaseOf`:
 * - `proposed`: a plan with its planDigest. `refine` (the starter or an admin)
 *   plans again and the digest changes, so an approval of the old plan no
 *   longer matches; `stop` (the starter or an admin) moves to `stopped`;
 *   `approve` (executeChoice 1: the starter or an admin, or a second approver
 *   where the rule asks for one, bound to the digest they saw) gives the
 *   approval that `claim` records when it moves to `executing`.
 * - `executing`: claimed once; `finish` records the outcome (`executed`),
 *   `release` gives the session back (`proposed`) when nothing was applied.
 * - `executed` (done or failed) and `stopped`: closed; every step is refused
 *   (`closedRefusal`) except a stop of a stopped session, which answers the
 *   session unchanged, so stopping twice answers the same in every session tool.
 * Approval is a step, not a phase: the approval is recorded with the execution.
 * Who a caller is: their identity (kind, issuer, subject) or their person by
 * the people file, never only a name (domain/auth/session-owner.ts).
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

/** What a remediation or operation session stores that the lifecycle reads: its starter and its one execution. */
export interface ApprovalSessionState<O = unknown> extends Owned, Executable<O> {}

/**
 * Why a step was refused:
 * - `not_owner` (403): the caller neither started the session nor is an admin;
 * - `closed` (400): the session is executing, executed or stopped (the error carries the execution record);
 * - `plan_changed` (409): the planDigest sent is not the plan's;
 * - `second_approver_required` (403): the plan needs a second approver and the caller is the starter;
 * - `digest_required` (400): a second approver sent no planDigest;
 * - `not_executing` (400): finish or release of a session that is not executing.
 */
export type RefusalReason = 'not_owner' | 'closed' | 'plan_changed' | 'second_approver_required' | 'digest_required' | 'not_executing';

/** A step the aggregate refused: why, and the error the caller is answered with (its status by `error.code`). */
export interface Refusal {
  readonly reason: RefusalReason;
  readonly error: DomainError;
}

/** What a lifecycle step decides: a new state to store, the state as it is (nothing to store), or a refusal. */
export type Decision<S> = { next: S } | { unchanged: S } | { refused: Refusal };

/** Who asks for a step: the caller, and the second-approver rule in force. */
export interface Actor {
  caller: Caller;
  policy?: ApprovalPolicy;
}

function refused(reason: RefusalReason, error: DomainError): { refused: Refusal } {
  return { refused: { reason, error } };
}

function closed(id: string, state: Executable<unknown>, step: string, start: string): { refused: Refusal } | undefined {
  const error = closedRefusal(id, state, step, start);
  return error ? refused('closed', error) : undefined;
}

function notOwner(id: string, state: Owned, caller: Caller): { refused: Refusal } | undefined {
  const error = notOwnerRefusal(state.owner, caller, id);
  return error ? refused('not_owner', error) : undefined;
}

/**
 * Stop (executeChoice 2), for the starter or an admin (403 for anyone else,
 * whatever the phase): a proposed session becomes stopped at `at`, nothing
 * applied; a stopped one stays as it was, so stopping twice answers the same
 * in every session tool; an executing or executed one is refused (the 400
 * carries its execution record). `start` says how to begin anew.
 */
export function stop<S extends ApprovalSessionState>(id: string, state: S, by: Actor, at: string, start: string): Decision<S> {
  const who = notOwner(id, state, by.caller);
  if (who) return who;
  switch (phaseOf(state)) {
    case 'proposed':
      return { next: { ...state, stopped: { at } } };
    case 'stopped':
      return { unchanged: state };
    default:
      return closed(id, state, 'stopped', start)!;
  }
}

/**
 * Refine (plan again within the session), for the starter or an admin, in
 * the proposed phase only. Allowed, it gives `replan`: the new plan's state
 * with the starter kept (a refine cannot change who owns the session); the
 * new plan has a new digest, so an approval of the old one no longer matches.
 */
export function refine<S extends ApprovalSessionState>(
  id: string,
  state: S,
  by: Actor,
  start: string,
): { refused: Refusal } | { replan: (next: Omit<S, 'owner' | 'execution' | 'stopped'>) => S } {
  const refusal = notOwner(id, state, by.caller) ?? closed(id, state, 'refined', start);
  if (refusal) return refusal;
  const owner = state.owner ? { owner: state.owner } : {};
  return { replan: (next) => ({ ...owner, ...next, ...owner }) as S };
}

/**
 * Approve executing the session's plan (executeChoice 1): the approval rule
 * (`judgeApproval`: the digest, who may, the second approver), then the
 * phase: only a proposed session is approved (a closed one: 400 with its
 * execution record).
 */
export function approve(
  id: string,
  state: ApprovalSessionState,
  by: Actor & { plan: PlanUnderApproval; sentDigest?: string },
  start: string,
): { approval: Approval } | { refused: Refusal } {
  const judged = judgeApproval({ sessionId: id, state, plan: by.plan, caller: by.caller, policy: by.policy ?? NO_SECOND_APPROVER, sentDigest: by.sentDigest });
  if ('refused' in judged) return judged;
  return closed(id, state, 'executed again', start) ?? judged;
}

/**
 * Claim the one execution: a proposed session moves to executing, recording
 * when it started and who approved which plan; any other phase is refused
 * (`closed`). The claim is stored with a revision check, so of two requests
 * at the same moment exactly one moves the session.
 */
export function claim<S extends ApprovalSessionState>(id: string, state: S, at: string, approval: Approval | undefined, start: string): Decision<S> {
  const refusal = closed(id, state, 'executed again', start);
  if (refusal) return refusal;
  return { next: { ...state, execution: { status: 'running', startedAt: at, ...(approval ? { approval } : {}) } } };
}

/** Record the execution's end: an executing session becomes executed, done with its outcome or failed with a safe message. */
export function finish<S extends ApprovalSessionState<O>, O>(id: string, state: S, result: { outcome: O } | { error: string }, at: string): Decision<S> {
  const running = state.execution;
  if (phaseOf(state) !== 'executing' || !running) return refused('not_executing', notExecuting(id, 'its outcome cannot be recorded'));
  const record: ExecutionRecord<O> =
    'outcome' in result
      ? { ...running, status: 'done', outcome: result.outcome, finishedAt: at }
      : { ...running, status: 'failed', error: result.error.slice(0, 1000), finishedAt: at };
  return { next: { ...state, execution: record } };
}

/** Give the session back after an execution that applied nothing (a dry run the API server could not answer): executing becomes proposed again. */
export function release<S extends ApprovalSessionState>(id: string, state: S): Decision<S> {
  if (phaseOf(state) !== 'executing') return refused('not_executing', notExecuting(id, 'there is no claim to give back'));
  const { execution: _claim, ...proposed } = state;
  return { next: proposed as S };
}

function notExecuting(id: string, what: string): ValidationError {
  return new ValidationError(`Session ${id} is not being executed; ${what}`);
}

/**
 * Automatic mode: the rule that allowed the execution approves the plan it
 * judged on the starter's behalf, unless the plan needs a second approver
 * (by svc's assessed risks): the starter is never their own second approver,
 * so such a plan waits for one (`secondApprover` says why).
 */
export function approveAutomatically(
  owner: SessionOwner,
  plan: PlanUnderApproval,
  policy: ApprovalPolicy,
): { approval: Approval } | { secondApprover: string } {
  const why = secondApproverReason(policy, plan);
  return why === undefined ? { approval: { by: owner, planDigest: plan.planDigest } } : { secondApprover: why };
}

/** The aggregate's steps under one name, for the use cases: `approvalSession.stop(...)`. */
export const approvalSession = { phaseOf, approve, approveAutomatically, claim, finish, release, stop, refine } as const;

/** The plan an approval is about: its digest and, from the write guard, each action's assessed risk and namespace. */
export interface PlanUnderApproval {
  planDigest: string;
  risks: readonly RiskLevel[];
  namespaces: readonly (string | undefined)[];
}

interface ApprovalInput {
  sessionId: string;
  state: Owned;
  plan: PlanUnderApproval;
  caller: Caller;
  policy: ApprovalPolicy;
  sentDigest?: string;
  how?: string;
  /** How the messages name what is approved (default `Session <id>`; the ledger's revert: `The revert of change <id>`). */
  subject?: string;
}

/**
 * The approval rule, phase aside: `plan_changed` (409) when `sentDigest` is
 * not the plan's digest (the plan changed since the caller read it, e.g. a
 * refine); with the second-approver rule on and the plan needing it (by
 * svc's assessed risks, never the model's labels), `second_approver_required`
 * (403) for the starter and `digest_required` (400) for another caller who
 * sent no digest (a second approver approves the plan they read); otherwise
 * only the starter or an admin (`not_owner`, 403).
 */
export function judgeApproval(input: ApprovalInput): { approval: Approval } | { refused: Refusal } {
  const { sessionId, state, plan, caller, policy, sentDigest } = input;
  const subject = input.subject ?? `Session ${sessionId}`;
  if (sentDigest !== undefined && sentDigest !== plan.planDigest)
    return refused(
      'plan_changed',
      new ConflictError(
        input.subject
          ? `${subject}: the plan changed since it was previewed (planDigest ${sentDigest} was sent, the plan is now ${plan.planDigest}); nothing was written: preview it again and send the new planDigest`
          : `Session ${sessionId}'s plan changed since it was read (planDigest ${sentDigest} was sent, the plan is now ${plan.planDigest}); nothing was executed: look at the session again and approve the plan as it is`,
        { planDigest: plan.planDigest },
      ),
    );
  const approval = { by: ownerOf(caller), planDigest: plan.planDigest };
  const why = state.owner !== undefined ? secondApproverReason(policy, plan) : undefined;
  if (why === undefined) {
    const error = notOwnerRefusal(state.owner, caller, sessionId);
    return error ? refused('not_owner', error) : { approval };
  }
  const second = secondApproverRefusal(policy, state.owner, caller, sessionId, plan, input.how, input.subject);
  if (second) return refused('second_approver_required', second);
  if (sentDigest === undefined && !isOwner(state.owner, caller))
    return refused(
      'digest_required',
      new ValidationError(
        `${subject} needs a second approver (${why}): send the planDigest you reviewed (${plan.planDigest} now)${input.subject ? '' : ' with executeChoice 1'}`,
        { planDigest: plan.planDigest },
      ),
    );
  return { approval };
}

/**
 * judgeApproval for what is not an approval session (a solution's deploy, a
 * ledger revert): the approval, or throws the refusal's error.
 */
export function approvePlan(input: ApprovalInput): Approval {
  const judged = judgeApproval(input);
  if ('refused' in judged) throw judged.refused.error;
  return judged.approval;
}
