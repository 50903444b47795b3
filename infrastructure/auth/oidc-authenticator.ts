import { hash } from 'node:crypto';
import { createRemoteJWKSet, customFetch, jwtVerify, type JWTPayload } from 'jose';
import type { Caller } from '../../domain/auth/caller.js';
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
/** How long a fetched key set is trusted before jose fetches it again (jose's cacheMaxAge, its default, made explicit). */
export const KEYS_MAX_AGE_MS = 10 * 60_000;

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
 * A verdict holds until the token's `exp`, and no longer than the key set it
 * was checked against is trusted (`KEYS_MAX_AGE_MS` after it was fetched);
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
    const username = payload[this.config.usernameClaim];
    if (typeof username !== 'string' || username.length === 0 || username.length > MAX_NAME || /[\p{Cc}]/u.test(username))
      return { refused: `claim ${this.config.usernameClaim} is not a usable username` };
    const raw = payload[this.config.groupsClaim] ?? [];
    if (!Array.isArray(raw) || raw.length > MAX_GROUPS || !raw.every((g) => typeof g === 'string' && g.length > 0 && g.length <= MAX_NAME))
      return { refused: `claim ${this.config.groupsClaim} must be at most ${MAX_GROUPS} group names` };
    const groups = Object.freeze([...(raw as string[])]);
    const caller: Caller = Object.freeze({ username, groups, roles: rolesFor(this.roles, username, groups), kind: 'oidc' as const });
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
          cacheMaxAge: KEYS_MAX_AGE_MS,
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
