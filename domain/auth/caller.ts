/**
 * Who is calling svc: what every tool run, session, ledger entry and run
 * record is scoped by. Built by the interfaces from the request's
 * credentials (the request gate) and handed to use cases in their
 * ToolContext; use cases never see a token.
 */

/** Roles are cumulative: an operator is also a viewer, an admin also an operator. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * How the caller proved who they are: the one `SVC_AUTH_TOKEN`, a named
 * static token, an OIDC/JWT bearer token, or nobody (svc runs without
 * authentication on a loopback bind).
 */
export const CALLER_KINDS = ['static', 'tokens-file', 'oidc', 'anonymous'] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

export interface Caller {
  /**
   * Who the caller is: `kind:issuer:subject` (`identityId`). What ownership
   * (sessions, runs, run streams), revert, rate limits and the second
   * approver compare; two callers with one name from two kinds of token are
   * two identities.
   */
  readonly id: string;
  /**
   * The name people see (logs, refusals, the ledger): a static token's name,
   * `admin`, `anonymous`, or the OIDC username claim behind the OIDC prefix
   * (`oidc:alice@example.com`), so it never equals a tokens-file name. Never a token.
   */
  readonly username: string;
  readonly groups: readonly string[];
  /** Every role the caller holds, lowest first (cumulative: `admin` comes with `operator` and `viewer`). */
  readonly roles: readonly Role[];
  readonly kind: CallerKind;
  /**
   * The person the people file (SVC_PEOPLE_FILE) says this identity is, when
   * it names one: what ownership and the second approver compare across a
   * person's credentials (a tokens-file name and an OIDC login).
   */
  readonly person?: string;
}

/** The issuer of the identities svc itself vouches for (`SVC_AUTH_TOKEN`, the tokens file, an unauthenticated loopback caller). */
export const SVC_ISSUER = 'svc';

/**
 * An identity id, `kind:issuer:subject`: the subject's `%` and `:` are
 * percent-encoded, so the id ends at the last `:` and no two (issuer,
 * subject) pairs give one id. The issuer is `svc` for svc's own tokens, the
 * token's `iss` for OIDC.
 */
export function identityId(kind: CallerKind, issuer: string, subject: string): string {
  return `${kind}:${issuer}:${subject.replace(/%/g, '%25').replace(/:/g, '%3A')}`;
}

/**
 * The identity id of a record stored before ids were (a session owner, a run
 * caller): exact for svc's own kinds (their subject is their name); an OIDC
 * record without one never matches a caller (its issuer and subject were not
 * kept), so only an admin may act on it.
 */
export function storedIdentityId(who: { id?: string; username: string; kind?: CallerKind }): string {
  if (who.id !== undefined) return who.id;
  if (who.kind === undefined || who.kind === 'oidc') return `unverifiable:${who.kind ?? 'unknown'}:${who.username}`;
  return identityId(who.kind, SVC_ISSUER, who.username);
}

/** Every role up to and including `role`. */
export function rolesUpTo(role: Role): readonly Role[] {
  return ROLES.slice(0, ROLES.indexOf(role) + 1);
}

/** Whether the caller holds `role` (roles are cumulative). */
export function hasRole(caller: Caller, role: Role): boolean {
  return caller.roles.includes(role);
}

/** The holder of `SVC_AUTH_TOKEN`: the one caller svc knew before named callers, an admin. */
export const STATIC_TOKEN_CALLER: Caller = svcAdmin('static', 'admin');

/** Anyone, on a server that runs without authentication (loopback only): an admin, as before named callers. */
export const ANONYMOUS_CALLER: Caller = svcAdmin('anonymous', 'anonymous');

/** A caller svc itself names (issuer `svc`, no groups), with every role: frozen. */
export function svcAdmin(kind: 'static' | 'anonymous', name: string): Caller {
  return Object.freeze({ id: identityId(kind, SVC_ISSUER, name), username: name, groups: Object.freeze([]), roles: rolesUpTo('admin'), kind });
}
