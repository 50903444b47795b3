import path from 'node:path';
import { EMPTY_ROLE_MAPPING, parseRoleMapping, type RoleMapping } from '../../domain/auth/role-mapping.js';
import type { PeopleDirectory } from '../../domain/auth/people.js';
import { bool, ConfigError, int, str, type Env } from './env-parsers.js';
import { parsePeopleFile } from './people-file.js';
import { isLoopbackHost } from './server-config.js';

export interface OidcConfig {
  /** The `iss` every token must carry, exactly. */
  issuer: string;
  /** The `aud` every token must carry (one of). */
  audience: string;
  /** Where the signing keys are; undefined: the issuer's discovery document names it. */
  jwksUrl?: string;
  usernameClaim: string;
  /** `SVC_OIDC_USERNAME_PREFIX` (default `oidc:`): put before every OIDC username, so none equals a tokens-file or static name. */
  usernamePrefix: string;
  groupsClaim: string;
  /** Least time between two fetches of the key set (a flood of unknown `kid`s fetches at most this often), milliseconds. */
  jwksCooldownMs: number;
  /** Longest wait for the discovery document or the key set, milliseconds. */
  fetchTimeoutMs: number;
}

/** Who may call svc and what they may do (docs/identity.md). */
export interface AuthConfig {
  /** `SVC_AUTH_TOKENS_FILE`: named static tokens, `name role sha256-hex [groups]` per line. */
  tokensFile?: string;
  oidc?: OidcConfig;
  /** `SVC_ROLES`: groups and usernames to roles. */
  roles: RoleMapping;
  /** `SVC_REQUIRE_SECOND_APPROVER`: a high-risk execution (or a deploy into a protected namespace) needs a second operator. */
  requireSecondApprover: boolean;
  protectedNamespaces: readonly string[];
  /** `SVC_PEOPLE_FILE`: which identities are one person (ownership and the second approver compare people). */
  people: PeopleDirectory;
}

/** A URL svc fetches keys from: https, or http only on a loopback address (a test IdP, a sidecar). */
function keyUrl(variable: string, value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new ConfigError(variable, 'must be a URL');
  }
  if (u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname))) return value;
  throw new ConfigError(variable, `must be an https URL (http is accepted only on a loopback address), got ${u.protocol}//${u.host}`);
}

/**
 * A word and a colon (`oidc:`, `dex:`): tokens-file names cannot hold a colon
 * and `admin` has none, so a prefixed name equals neither; `system:` is
 * Kubernetes' own.
 */
function usernamePrefix(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,30}:$/.test(value))
    throw new ConfigError('SVC_OIDC_USERNAME_PREFIX', 'must be a word of letters, digits, ., _ or - followed by a colon (e.g. oidc:)');
  if (value.toLowerCase() === 'system:') throw new ConfigError('SVC_OIDC_USERNAME_PREFIX', 'must not be system: (Kubernetes reserves it)');
  return value;
}

function parseOidc(env: Env): OidcConfig | undefined {
  const issuer = str(env, 'SVC_OIDC_ISSUER');
  if (issuer === undefined) {
    for (const v of ['SVC_OIDC_AUDIENCE', 'SVC_OIDC_JWKS_URL', 'SVC_OIDC_USERNAME_PREFIX'])
      if (str(env, v) !== undefined) throw new ConfigError(v, 'needs SVC_OIDC_ISSUER');
    return undefined;
  }
  const audience = str(env, 'SVC_OIDC_AUDIENCE');
  if (audience === undefined) throw new ConfigError('SVC_OIDC_AUDIENCE', 'is required with SVC_OIDC_ISSUER (the client id tokens are issued for)');
  const jwksUrl = str(env, 'SVC_OIDC_JWKS_URL');
  return {
    issuer: keyUrl('SVC_OIDC_ISSUER', issuer),
    audience,
    jwksUrl: jwksUrl === undefined ? undefined : keyUrl('SVC_OIDC_JWKS_URL', jwksUrl),
    usernameClaim: str(env, 'SVC_OIDC_USERNAME_CLAIM') ?? 'sub',
    usernamePrefix: usernamePrefix(str(env, 'SVC_OIDC_USERNAME_PREFIX') ?? 'oidc:'),
    groupsClaim: str(env, 'SVC_OIDC_GROUPS_CLAIM') ?? 'groups',
    jwksCooldownMs: int(env, 'SVC_OIDC_JWKS_COOLDOWN_MS', 30000, 0, 3600000),
    fetchTimeoutMs: int(env, 'SVC_OIDC_FETCH_TIMEOUT_MS', 5000, 100, 60000),
  };
}

export function parseAuthConfig(env: Env, cwd: string): AuthConfig {
  const file = str(env, 'SVC_AUTH_TOKENS_FILE');
  let roles = EMPTY_ROLE_MAPPING;
  const rolesText = str(env, 'SVC_ROLES');
  if (rolesText !== undefined) {
    try {
      roles = parseRoleMapping(rolesText);
    } catch (err) {
      throw new ConfigError('SVC_ROLES', `${(err as Error).message}; write role=group,group;role=user (roles: viewer, operator, admin; * is any caller)`);
    }
  }
  const oidc = parseOidc(env);
  return {
    tokensFile: file === undefined ? undefined : path.resolve(cwd, file),
    oidc,
    roles,
    requireSecondApprover: bool(env, 'SVC_REQUIRE_SECOND_APPROVER', false),
    protectedNamespaces: (str(env, 'SVC_PROTECTED_NAMESPACES') ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean),
    people: parsePeopleFile(env, cwd, oidc?.issuer),
  };
}
