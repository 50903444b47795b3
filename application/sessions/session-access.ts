import { ANONYMOUS_CALLER, type Caller } from '../../domain/auth/caller.js';
import {
  NO_SECOND_APPROVER,
  ownerOf,
  requireOwnerOrAdmin,
  requireSessionReader,
  type ApprovalPolicy,
  type Owned,
  type SessionOwner,
} from '../../domain/auth/session-owner.js';
import type { RiskLevel } from '../../domain/actions/cluster-action.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import type { Actor, PlanUnderApproval } from '../../domain/sessions/approval-session.js';
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

/** Reading a session through its tool: exactly the rule of GET /api/v1/sessions/{id} (requireSessionReader). */
export function requireSessionRead(session: Session<Owned>, approval: ApprovalPolicy | undefined, context: ToolContext | undefined): void {
  requireSessionReader(session.state.owner, callerIn(context), session.id, approval ?? NO_SECOND_APPROVER);
}

/** Refuses (403) a caller who neither started the session nor is an admin. */
export function requireSessionOwner(session: Session<Owned>, context: ToolContext | undefined): void {
  requireOwnerOrAdmin(session.state.owner, callerIn(context), session.id);
}

/**
 * The plan a remediation or operation session asks approval for: its digest
 * and each previewed action's risk as the write guard assessed it (never the
 * model's label) and its namespace.
 */
export function planUnderApproval(planDigest: string, previews: readonly { risk: RiskLevel; target: ResourceRef }[]): PlanUnderApproval {
  return { planDigest, risks: previews.map((p) => p.risk), namespaces: previews.map((p) => p.target.namespace) };
}

/** Who asks for a step of an approval session: the tool run's caller and the second-approver rule in force. */
export function actorIn(context: ToolContext | undefined, approval: ApprovalPolicy | undefined): Actor {
  return { caller: callerIn(context), policy: approval ?? NO_SECOND_APPROVER };
}
