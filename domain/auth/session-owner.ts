import { ForbiddenError } from '../errors.js';
import type { Caller, CallerKind } from './caller.js';
import { hasRole, storedIdentityId } from './caller.js';
import { samePerson } from './person.js';

/** Who started a session: kept in the session's state, never a token. */
export interface SessionOwner {
  /** The identity id (`kind:issuer:subject`); absent on sessions stored before ids were (see `storedIdentityId`). */
  readonly id?: string;
  readonly username: string;
  readonly kind: CallerKind;
}

/** A state that records who started it (absent on sessions stored before owners were). */
export interface Owned {
  owner?: SessionOwner;
}

export function ownerOf(caller: Caller): SessionOwner {
  return { id: caller.id, username: caller.username, kind: caller.kind };
}

/** Whether the caller is the session's owner: the same identity (kind, issuer, subject), never only the same name. */
export function isOwner(owner: SessionOwner | undefined, caller: Caller): boolean {
  return owner === undefined || storedIdentityId(owner) === caller.id;
}

/** The owner as a refusal names them. */
function named(owner: SessionOwner): string {
  return owner.kind === 'oidc' ? owner.username : `${owner.username} (${owner.kind})`;
}

/**
 * Acting on a session (execute, stop, refine, answer, deploy) is for the
 * caller who started it, or an admin: anyone else gets 403 naming the owner.
 * Reading is requireSessionReader's rule.
 */
export function requireOwnerOrAdmin(owner: SessionOwner | undefined, caller: Caller, sessionId: string, what: 'continue' | 'read' = 'continue'): void {
  if (isOwner(owner, caller) || hasRole(caller, 'admin')) return;
  throw new ForbiddenError(`Session ${sessionId} was started by ${named(owner!)}; only they or an admin may ${what} it`, { owner: owner!.username });
}

/**
 * Reading a session (its tool called with the sessionId alone, or
 * `GET /api/v1/sessions/{id}`: the same rule for both) is for its starter or
 * an admin; with the second-approver rule on, also any operator, who may be
 * the one to approve it and must read the plan first. Anyone else gets 403.
 */
export function requireSessionReader(owner: SessionOwner | undefined, caller: Caller, sessionId: string, policy: ApprovalPolicy): void {
  if (policy.requireSecondApprover && hasRole(caller, 'operator')) return;
  requireOwnerOrAdmin(owner, caller, sessionId, 'read');
}

/** What the second-approver rule needs: `SVC_REQUIRE_SECOND_APPROVER` and `SVC_PROTECTED_NAMESPACES`. */
export interface ApprovalPolicy {
  readonly requireSecondApprover: boolean;
  readonly protectedNamespaces: readonly string[];
}

export const NO_SECOND_APPROVER: ApprovalPolicy = { requireSecondApprover: false, protectedNamespaces: [] };

/** Why the write needs a second approver under `policy`, or undefined when it does not. */
export function secondApproverReason(
  policy: ApprovalPolicy,
  write: { risks: readonly string[]; namespaces: readonly (string | undefined)[] },
): string | undefined {
  if (!policy.requireSecondApprover) return undefined;
  if (write.risks.includes('high')) return 'it includes a high-risk action';
  const guarded = [...new Set(write.namespaces.filter((n): n is string => n !== undefined && policy.protectedNamespaces.includes(n)))];
  return guarded.length ? `it writes into the protected namespace${guarded.length > 1 ? 's' : ''} ${guarded.join(', ')}` : undefined;
}

/**
 * With the second-approver rule on, a write of risk `high` (or into a
 * protected namespace) is approved by another person than the one who
 * started the session (`samePerson`: a different identity and a different
 * normalised username): the starter, under any of their tokens, gets 403.
 */
export function requireSecondApprover(
  policy: ApprovalPolicy,
  owner: SessionOwner | undefined,
  caller: Caller,
  sessionId: string,
  write: { risks: readonly string[]; namespaces: readonly (string | undefined)[] },
  how = 'another operator must send executeChoice 1',
  /** How the message names what is approved (default `Session <id>`, started by the owner). */
  subject?: string,
): void {
  if (owner === undefined || !samePerson(owner, caller)) return;
  const why = secondApproverReason(policy, write);
  if (why === undefined) return;
  const what = subject
    ? `${subject} needs a second approver: ${why}, and the change is ${named(owner)}'s`
    : `Session ${sessionId} needs a second approver: ${why}, and it was started by ${named(owner)}`;
  throw new ForbiddenError(`${what}; ${how}`, {
    owner: owner.username,
    secondApproverRequired: true,
  });
}
