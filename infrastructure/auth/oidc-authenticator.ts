import { hash } from 'node:crypto';
import { createRemoteJWKSet, customFetch, jwtVerify, type JWTPayload } from 'jose';
import { identityId, type Caller } from '../../domain/auth/caller.js';
import { NO_PEOPLE, type PeopleDirectory } from '../../domain/auth/people.js';
import { hasInvisible, isReservedName } from '../../domain/auth/person.js';
import { rolesFor, type RoleMapping } from '../../domain/auth/role-mapping.js';
import type { Authentication } from '../../domain/ports/authenticator.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { OidcConfig } from '../config/auth-config.js';
import { boundedFetch } from './bounded-fetch.js';
import { discoverJwksUrl } from './oidc-discovery.js';

const ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];
const LEEWAY_S = 60;
const MAX_GROUPS = 1000;
const MAX_NAME = 256;
/** A control character: no name from a token holds one. */
const CONTROL = /\p{Cc}/u;
/** Longest a remembered verdict lasts after the key set it was checked against was fetched. */
export const KEYS_MAX_AGE_MS = 10 * 60_000;
/**
 * Least age of the key set before a verification fetches it again (jose's
 * cacheMaxAge is the larger of this and the cool-down): a key removed from
 * the set stops working at that fetch.
 */
const MIN_KEYS_AGE_MS = 1000;

/** The refusal a jose error stands for: fixed phrases, safe for the caller and the log. */
function refusalOf(err: unknown): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'token expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const claim = String((err as { claim?: string }).claim);
      return claim === 'nbf' || claim === 'iat' ? 'token not yet valid' : `wrong ${['iss', 'aud', 'exp', 'sub'].includes(claim) ? claim : 'claim'}`;
    }
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'bad signature';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'unknown signing key';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'signing algorithm not accepted (RS256, ES256, EdDSA)';
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
      return 'signing keys unavailable';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'malformed token';
    default:
      return 'signing keys unavailable';
  }
}

/**
 * Verifies OIDC/JWT bearer tokens with `jose` against the issuer's keys
 * (RS256, ES256, EdDSA; issuer and audience exact; `exp` required; 60 s
 * leeway). The key set is cached by jose and fetched again on an unknown
 * `kid` at most once per `jwksCooldownMs`; a failed fetch is not retried
 * for a while either, so a flood of bad tokens cannot hammer the IdP.
 * The key set is fetched again by the first verification once it is older
 * than the cool-down (at least 1 s), so a key removed from the set signs no
 * new token's way in after that fetch. A verdict holds until the token's
 * `exp`, and no longer than `KEYS_MAX_AGE_MS` after its key set was fetched;
 * a fetched key set that differs from the last one (a key rotated out)
 * bumps `keysEpoch` and calls `onKeysChanged`, so remembered verdicts go.
 */
export class OidcAuthenticator {
  private jwks?: ReturnType<typeof createRemoteJWKSet>;
  private jwksPending?: Promise<ReturnType<typeof createRemoteJWKSet>>;
  private failedAt = -Infinity;
  private keysFetchedAt = -Infinity;
  private keysDigest?: string;
  /** Bumped whenever a fetched key set differs from the one before. */
  keysEpoch = 0;

  constructor(
    private readonly config: OidcConfig,
    private readonly roles: RoleMapping,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly onKeysChanged: () => void = () => undefined,
    /** SVC_PEOPLE_FILE: the person an OIDC identity (or the address its token verified) is. */
    private readonly people: PeopleDirectory = NO_PEOPLE,
  ) {}

  async verify(token: string): Promise<Authentication> {
    try {
      const keys = this.jwks ?? (await this.keySet());
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: ALGORITHMS,
        clockTolerance: LEEWAY_S,
        requiredClaims: ['exp'],
        currentDate: new Date(this.now()),
      });
      return this.callerOf(payload);
    } catch (err) {
      const refused = refusalOf(err);
      if (refused === 'signing keys unavailable')
        this.logger.warn('OIDC keys unavailable', { issuer: this.config.issuer, error: String((err as Error).message).slice(0, 200) });
      return { refused };
    }
  }

  private callerOf(payload: JWTPayload): Authentication {
    const { usernameClaim, groupsClaim, usernamePrefix, issuer } = this.config;
    // jose checks iat only against a maximum age: a token dated ahead of the leeway was not issued by a sane clock
    if (typeof payload.iat === 'number' && payload.iat * 1000 > this.now() + LEEWAY_S * 1000) return { refused: 'token issued in the future' };
    const claimed = payload[usernameClaim];
    if (typeof claimed !== 'string' || claimed.length === 0 || claimed.length > MAX_NAME || CONTROL.test(claimed))
      return { refused: `claim ${usernameClaim} is not a usable username` };
    // an address the identity provider has not verified names nobody
    if (usernameClaim === 'email' && payload.email_verified !== true) return { refused: 'claim email_verified is not true' };
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > MAX_NAME) return { refused: 'claim sub is missing' };
    const raw = payload[groupsClaim] ?? [];
    if (!Array.isArray(raw) || raw.length > MAX_GROUPS || !raw.every((g) => typeof g === 'string' && g.length > 0 && g.length <= MAX_NAME))
      return { refused: `claim ${groupsClaim} must be at most ${MAX_GROUPS} group names` };
    const groups = Object.freeze([...(raw as string[])]);
    // Kubernetes' own names are never taken from a token, however spelled: 403 before any work (the token itself is valid)
    const group = groups.find(isReservedName);
    const reserved = isReservedName(claimed)
      ? `the username ${JSON.stringify(claimed.slice(0, 64))}`
      : group && `the group ${JSON.stringify(group.slice(0, 64))}`;
    if (reserved) return { refused: `${reserved} is reserved by Kubernetes (system:)`, forbidden: true };
    // a group gets the rules of a username: two names that look alike are not two groups
    if (hasInvisible(claimed)) return { refused: `claim ${usernameClaim} holds invisible or format characters` };
    if (groups.some((g) => CONTROL.test(g) || hasInvisible(g))) return { refused: `claim ${groupsClaim} holds invisible or format characters` };
    const username = `${usernamePrefix}${claimed}`;
    const id = identityId('oidc', issuer, payload.sub);
    // an address counts only as the identity provider verified it: registering alice@example.com unproven makes nobody alice
    const verifiedEmail = payload.email_verified === true && typeof payload.email === 'string' ? payload.email : undefined;
    const person = this.people.personOfOidc(id, verifiedEmail);
    const caller: Caller = Object.freeze({
      id,
      username,
      groups,
      roles: rolesFor(this.roles, username, groups),
      kind: 'oidc' as const,
      ...(person !== undefined ? { person } : {}),
    });
    return { caller, until: Math.min((payload.exp as number) * 1000, this.keysFetchedAt + KEYS_MAX_AGE_MS) };
  }

  /** The key set, once its URL is known (configured, or read from the discovery document). */
  private keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    return (this.jwksPending ??= this.resolveUrl().then(
      (url) => {
        const { fetchTimeoutMs, jwksCooldownMs } = this.config;
        this.jwks = createRemoteJWKSet(new URL(url), {
          timeoutDuration: fetchTimeoutMs,
          cooldownDuration: jwksCooldownMs,
          // a key removed from the set stops verifying new tokens at the first verification past the cool-down
          cacheMaxAge: Math.max(jwksCooldownMs, MIN_KEYS_AGE_MS),
          [customFetch]: (u: string, options: { signal: AbortSignal }) =>
            this.guarded(() => boundedFetch(u, fetchTimeoutMs, options.signal)).then((res) => this.noteKeys(res)),
        });
        return this.jwks;
      },
      (err) => {
        this.jwksPending = undefined;
        throw err;
      },
    ));
  }

  /** Records when a key set was fetched and whether it differs from the last one; hands jose the same answer. */
  private async noteKeys(res: Response): Promise<Response> {
    const body = await res.text();
    if (res.ok) {
      this.keysFetchedAt = this.now();
      const digest = hash('sha256', body, 'hex');
      if (this.keysDigest !== undefined && digest !== this.keysDigest) {
        this.keysEpoch++;
        this.logger.info('OIDC key set changed: verified tokens are checked again', { issuer: this.config.issuer });
        this.onKeysChanged();
      }
      this.keysDigest = digest;
    }
    return new Response(body, { status: res.status, headers: res.headers });
  }

  private resolveUrl(): Promise<string> {
    const { jwksUrl, issuer, fetchTimeoutMs } = this.config;
    if (jwksUrl !== undefined) return Promise.resolve(jwksUrl);
    return this.guarded(() => discoverJwksUrl(issuer, fetchTimeoutMs));
  }

  /** Runs a fetch unless one failed within the cool-down; records failures. */
  private async guarded<T>(fetchIt: () => Promise<T>): Promise<T> {
    const coolDown = Math.min(this.config.jwksCooldownMs, 5000);
    if (this.now() - this.failedAt < coolDown) throw Object.assign(new Error('identity provider failed moments ago'), { code: 'ERR_JWKS_TIMEOUT' });
    try {
      return await fetchIt();
    } catch (err) {
      this.failedAt = this.now();
      throw err;
    }
  }
}
