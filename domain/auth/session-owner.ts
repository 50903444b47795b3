import { ForbiddenError } from '../errors.js';
import type { Caller, CallerKind } from './caller.js';
import { hasRole, storedIdentityId } from './caller.js';
import type { PeopleDirectory } from './people.js';
import { samePerson } from './person.js';

/** Who started a session: kept in the session's state, never a token. */
export interface SessionOwner {
  /** The identity id (`kind:issuer:subject`); absent on sessions stored before ids were (see `storedIdentityId`). */
  readonly id?: string;
  readonly username: string;
  readonly kind: CallerKind;
  /** The people file's person of that identity when the session started (absent when the file names none). */
  readonly person?: string;
}

/** A state that records who started it (absent on sessions stored before owners were). */
export interface Owned {
  owner?: SessionOwner;
}

export function ownerOf(caller: Caller): SessionOwner {
  return { id: caller.id, username: caller.username, kind: caller.kind, ...(caller.person !== undefined ? { person: caller.person } : {}) };
}

/**
 * Whether the caller acts as whoever a record names (a change's author): the
 * same identity (kind, issuer, subject), or the same person where the people
 * file named both; never only the same name. A record with neither matches
 * nobody.
 */
export function actsAs(recorded: { id?: string; person?: string }, caller: Caller): boolean {
  return (recorded.id !== undefined && recorded.id === caller.id) || (recorded.person !== undefined && recorded.person === caller.person);
}

/** Whether the caller is the session's owner: the same identity, or the same person by the people file (actsAs); never only the same name. */
export function isOwner(owner: SessionOwner | undefined, caller: Caller): boolean {
  return owner === undefined || actsAs({ id: storedIdentityId(owner), person: owner.person }, caller);
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
  const refusal = notOwnerRefusal(owner, caller, sessionId, what);
  if (refusal) throw refusal;
}

/** requireOwnerOrAdmin's rule as a value: the 403 to answer, or undefined when the caller may. */
export function notOwnerRefusal(
  owner: SessionOwner | undefined,
  caller: Caller,
  sessionId: string,
  what: 'continue' | 'read' = 'continue',
): ForbiddenError | undefined {
  if (isOwner(owner, caller) || hasRole(caller, 'admin')) return undefined;
  return new ForbiddenError(`Session ${sessionId} was started by ${named(owner!)}; only they or an admin may ${what} it`, { owner: owner!.username });
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

/** What the second-approver rule needs: `SVC_REQUIRE_SECOND_APPROVER`, `SVC_PROTECTED_NAMESPACES`, and who is who (`SVC_PEOPLE_FILE`). */
export interface ApprovalPolicy {
  readonly requireSecondApprover: boolean;
  readonly protectedNamespaces: readonly string[];
  /** The people file: an identity it names is that person for records made before it named them too. */
  readonly people?: PeopleDirectory;
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
 * started the session (`samePerson`: another person by the people file, a
 * different identity and a different normalised username): the starter,
 * under any of their credentials, gets 403.
 */
export function requireSecondApprover(...args: Parameters<typeof secondApproverRefusal>): void {
  const refusal = secondApproverRefusal(...args);
  if (refusal) throw refusal;
}

/** requireSecondApprover's rule as a value: the 403 to answer, or undefined when the caller may approve. */
export function secondApproverRefusal(
  policy: ApprovalPolicy,
  owner: SessionOwner | undefined,
  caller: Caller,
  sessionId: string,
  write: { risks: readonly string[]; namespaces: readonly (string | undefined)[] },
  how = 'another operator must send executeChoice 1',
  /** How the message names what is approved (default `Session <id>`, started by the owner). */
  subject?: string,
): ForbiddenError | undefined {
  if (owner === undefined || !samePerson(owner, caller, policy.people)) return undefined;
  const why = secondApproverReason(policy, write);
  if (why === undefined) return undefined;
  const what = subject
    ? `${subject} needs a second approver: ${why}, and the change is ${named(owner)}'s`
    : `Session ${sessionId} needs a second approver: ${why}, and it was started by ${named(owner)}`;
  return new ForbiddenError(`${what}; ${how}`, {
    owner: owner.username,
    secondApproverRequired: true,
  });
}
