import type { Authentication, Authenticator } from '../../domain/ports/authenticator.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Config } from '../config/config.js';
import { OidcAuthenticator } from './oidc-authenticator.js';
import { StaticTokens, tokenDigest } from './static-tokens.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

/** Longer tokens are refused unread: a real JWT with its groups is a few KiB. */
export const MAX_TOKEN_LENGTH = 12 * 1024;
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

/**
 * The one Authenticator of an app: static tokens first (a digest lookup),
 * then, for a token shaped like a JWT, the OIDC verifier behind a cache of
 * verified tokens. Undefined when no identity is configured (svc runs open).
 * A malformed tokens file throws ConfigError (start-up stops naming the line).
 */
export function createAuthenticator(config: Config, logger: Logger, pollMs = TOKENS_FILE_POLL_MS): AuthenticatorParts | undefined {
  if (!config.server.authRequired) return undefined;
  const statics = new StaticTokens(config.server.authToken, config.auth.tokensFile, config.auth.roles, logger);
  statics.watch(pollMs);
  const oidc = config.auth.oidc && new OidcAuthenticator(config.auth.oidc, config.auth.roles, logger);
  const verified = new VerifiedTokenCache();
  const authenticator: Authenticator = {
    get epoch() {
      return statics.epoch;
    },
    authenticate(token: string): Authentication | Promise<Authentication> {
      if (token.length > MAX_TOKEN_LENGTH) return { refused: 'token too long' };
      const digest = tokenDigest(token);
      const known = statics.lookup(digest);
      if (known) return { caller: known, until: Infinity };
      if (!oidc || !JWT_SHAPE.test(token)) return { refused: 'unknown token' };
      if (!canonical(token)) return { refused: 'malformed token' };
      const now = Date.now();
      const hit = verified.get(digest, now);
      if (hit) return hit;
      return oidc.verify(token).then((a) => {
        if ('caller' in a) verified.set(digest, a);
        return a;
      });
    },
  };
  return { authenticator, stop: () => statics.stop() };
}
