import { MAX_TOKEN_CHARS, type Authentication, type Authenticator } from '../../domain/ports/authenticator.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Config } from '../config/config.js';
import { StaticTokens, tokenDigest } from './static-tokens.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

/** Longer tokens are refused unread: a real JWT with its groups is a few KiB. */
export const MAX_TOKEN_LENGTH = MAX_TOKEN_CHARS;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const TOKENS_FILE_POLL_MS = 2000;

/**
 * Every segment is canonical base64url: decoders ignore stray trailing bits,
 * so `<jwt>x` would otherwise verify as `<jwt>` (one token, many spellings).
 */
function canonical(token: string): boolean {
  return token.split('.').every((seg) => Buffer.from(seg, 'base64url').toString('base64url') === seg);
}

export interface AuthenticatorParts {
  authenticator: Authenticator;
  /** Stops watching the tokens file. */
  stop(): void;
}

/** What tests may set: the clock, and the verified-token cache's bounds. */
export interface AuthenticatorOptions {
  pollMs?: number;
  now?: () => number;
  cacheEntries?: number;
}

/**
 * The one Authenticator of an app: static tokens first (a digest lookup),
 * then a JWT verified before (the same digest, in a bounded cache, until its
 * verdict runs out), then, for a token shaped like a JWT, the OIDC verifier.
 * A cache hit skips the shape checks: its digest is that of a token that
 * passed them. A refusal is never remembered, and a key set that changes
 * empties the cache. Undefined when no identity is configured (svc runs
 * open). A malformed tokens file throws ConfigError (start-up stops naming
 * the line).
 */
export function createAuthenticator(config: Config, logger: Logger, options: AuthenticatorOptions = {}): AuthenticatorParts | undefined {
  if (!config.server.authRequired) return undefined;
  const now = options.now ?? Date.now;
  const statics = new StaticTokens(config.server.authToken, config.auth.tokensFile, config.auth.roles, logger, config.auth.people);
  statics.watch(options.pollMs ?? TOKENS_FILE_POLL_MS);
  const verified = new VerifiedTokenCache(options.cacheEntries);
  // the JWT library loads only when OIDC is configured (start-up time and memory)
  const oidc =
    config.auth.oidc &&
    new (require('./oidc-authenticator.js') as typeof import('./oidc-authenticator.js')).OidcAuthenticator(
      config.auth.oidc,
      config.auth.roles,
      logger,
      now,
      () => verified.clear(),
      config.auth.people,
    );
  const authenticator: Authenticator = {
    // both only grow, so their sum changes whenever either does
    get epoch() {
      return statics.epoch + (oidc ? oidc.keysEpoch : 0);
    },
    authenticate(token: string): Authentication | Promise<Authentication> {
      if (token.length > MAX_TOKEN_LENGTH) return { refused: 'token too long' };
      const digest = tokenDigest(token);
      const known = statics.lookup(digest);
      if (known) return { caller: known, until: Infinity };
      if (!oidc) return { refused: 'unknown token' };
      const hit = verified.get(digest, now());
      if (hit) return hit;
      if (!JWT_SHAPE.test(token)) return { refused: 'unknown token' };
      if (!canonical(token)) return { refused: 'malformed token' };
      const keysEpoch = oidc.keysEpoch;
      return oidc.verify(token).then((a) => {
        // a verdict reached with keys that have changed since is not kept
        if ('caller' in a && oidc.keysEpoch === keysEpoch) verified.set(digest, a);
        return a;
      });
    },
  };
  return { authenticator, stop: () => statics.stop() };
}
