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
export type CallerKind = 'static' | 'tokens-file' | 'oidc' | 'anonymous';

export interface Caller {
  /** A static token's name, the OIDC username claim, or `anonymous`. Never a token. */
  readonly username: string;
  readonly groups: readonly string[];
  /** Every role the caller holds, lowest first (cumulative: `admin` comes with `operator` and `viewer`). */
  readonly roles: readonly Role[];
  readonly kind: CallerKind;
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
export const STATIC_TOKEN_CALLER: Caller = Object.freeze({ username: 'admin', groups: Object.freeze([]), roles: rolesUpTo('admin'), kind: 'static' });

/** Anyone, on a server that runs without authentication (loopback only): an admin, as before named callers. */
export const ANONYMOUS_CALLER: Caller = Object.freeze({ username: 'anonymous', groups: Object.freeze([]), roles: rolesUpTo('admin'), kind: 'anonymous' });
