import { ForbiddenError } from '../errors.js';
import type { Caller } from './caller.js';
import { isReservedName } from './person.js';

/**
 * Who svc acts as in the cluster when `SVC_KUBE_IMPERSONATE` is on: the
 * `Impersonate-User` and `Impersonate-Group` headers of every request made
 * for a caller. Absent (undefined) means svc's own identity.
 */
export interface KubeIdentity {
  readonly user: string;
  readonly groups: readonly string[];
}

/** Longest user or group name sent in a header. */
export const MAX_IDENTITY_NAME = 256;
/** Most groups sent: a header block the API server would refuse is refused here first. */
export const MAX_IDENTITY_GROUPS = 100;

/** Printable ASCII without leading or trailing blanks: what an HTTP header can carry unchanged (no CR, LF, NUL or other control). */
const HEADER_SAFE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * The identity a caller is impersonated as: a named static token is
 * `svc:<name>` with the groups of its line, an OIDC caller is their username
 * claim with their groups claim. The holder of `SVC_AUTH_TOKEN` and an
 * unauthenticated loopback caller have no person behind them: undefined,
 * svc's own identity. Throws ForbiddenError when a name cannot be sent
 * safely (usernames and groups from a token are untrusted): a control
 * character, non-ASCII, over 256 characters, more than 100 groups, or a
 * Kubernetes `system:` name.
 */
export function kubeIdentityOf(caller: Caller): KubeIdentity | undefined {
  if (caller.kind === 'static' || caller.kind === 'anonymous') return undefined;
  const user = caller.kind === 'tokens-file' ? `svc:${caller.username}` : caller.username;
  const refuse = (why: string) =>
    new ForbiddenError(`svc cannot act as ${JSON.stringify(caller.username.slice(0, 64))} in the cluster: ${why}`, { reason: 'ImpersonationRefused' });
  if (caller.groups.length > MAX_IDENTITY_GROUPS) throw refuse(`more than ${MAX_IDENTITY_GROUPS} groups`);
  for (const [what, name] of [['username', user] as const, ...caller.groups.map((g) => ['group', g] as const)]) {
    if (name.length > MAX_IDENTITY_NAME) throw refuse(`a ${what} longer than ${MAX_IDENTITY_NAME} characters`);
    if (!HEADER_SAFE.test(name)) throw refuse(`a ${what} with characters other than printable ASCII`);
    // Kubernetes' own users and groups (system:masters, system:serviceaccount:...): never taken from a token claim or a file
    if (isReservedName(name)) throw refuse(`the ${what} ${JSON.stringify(name.slice(0, 64))} is reserved by Kubernetes (system:)`);
  }
  return Object.freeze({ user, groups: Object.freeze([...caller.groups]) });
}

/** One key per identity (user and groups, order kept): what a per-identity cache is keyed by. */
export function identityKey(identity: KubeIdentity): string {
  return JSON.stringify([identity.user, ...identity.groups]);
}
