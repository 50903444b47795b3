import { ANONYMOUS_CALLER, type Caller } from '../../domain/auth/caller.js';
import {
  NO_SECOND_APPROVER,
  ownerOf,
  requireOwnerOrAdmin,
  requireSecondApprover,
  secondApproverReason,
  type ApprovalPolicy,
  type Owned,
  type SessionOwner,
} from '../../domain/auth/session-owner.js';
import { actionTarget, type ClusterAction } from '../../domain/actions/cluster-action.js';
import type { Session } from '../../domain/sessions/session.js';
import type { ToolContext } from '../tool-handler.js';

/** The caller of a tool run; a use case run without a context (a unit test, a bench) acts as the anonymous admin. */
export function callerIn(context: ToolContext | undefined): Caller {
  return context?.caller ?? ANONYMOUS_CALLER;
}

/** The owner field a new session's state starts with. */
export function ownedBy(context: ToolContext | undefined): { owner: SessionOwner } {
  return { owner: ownerOf(callerIn(context)) };
}

/** Refuses (403) a caller who neither started the session nor is an admin. */
export function requireSessionOwner(session: Session<Owned>, context: ToolContext | undefined): void {
  requireOwnerOrAdmin(session.state.owner, callerIn(context), session.id);
}

/** What the second-approver rule looks at in a list of actions: their risks and namespaces. */
export function writeOf(actions: readonly ClusterAction[]): { risks: string[]; namespaces: (string | undefined)[] } {
  return { risks: actions.map((a) => a.risk), namespaces: actions.map((a) => actionTarget(a).namespace) };
}

/**
 * A write approved on a session (`executeChoice` 1, a deploy). When the
 * second-approver rule applies to it, anyone but the one who started the
 * session may approve it (that is the point) and the starter gets 403;
 * otherwise only the starter or an admin.
 */
export function approveWrite(
  session: Session<Owned>,
  write: { risks: readonly string[]; namespaces: readonly (string | undefined)[] },
  approval: ApprovalPolicy | undefined,
  context: ToolContext | undefined,
  how?: string,
): void {
  const policy = approval ?? NO_SECOND_APPROVER;
  if (session.state.owner !== undefined && secondApproverReason(policy, write) !== undefined) {
    requireSecondApprover(policy, session.state.owner, callerIn(context), session.id, write, how);
    return;
  }
  requireSessionOwner(session, context);
}

/** A step that acts on a remediation or operation session: executing is `approveWrite` of its actions; stopping and refining are for the starter or an admin. */
export function approveStep(
  session: Session<Owned>,
  step: { executeChoice?: number },
  actions: readonly ClusterAction[],
  approval: ApprovalPolicy | undefined,
  context: ToolContext | undefined,
): void {
  if (step.executeChoice === 1) approveWrite(session, writeOf(actions), approval, context);
  else requireSessionOwner(session, context);
}
