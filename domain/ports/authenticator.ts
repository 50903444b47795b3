import type { Caller } from '../auth/caller.js';

/**
 * The longest bearer token any authenticator reads: a real JWT with its
 * groups is a few KiB. Longer ones (and Authorization headers that long)
 * are refused unread, before any hashing or verification.
 */
export const MAX_TOKEN_CHARS = 12 * 1024;

/** A token that passed: who it names, and until when that verdict holds. */
export interface Authenticated {
  readonly caller: Caller;
  /**
   * Epoch milliseconds after which the token must be judged again: a JWT's
   * `exp` at the latest (sooner when the key set it was checked against is
   * due to be fetched again); Infinity for a static token.
   */
  readonly until: number;
}

/** Why a bearer token was refused: a short fixed phrase, safe to show to the caller and to log (never the token). */
export interface Refusal {
  readonly refused: string;
  /**
   * The token is valid but names a caller svc never serves (a Kubernetes
   * `system:` username or group): 403 `FORBIDDEN` before any work, not 401.
   */
  readonly forbidden?: true;
}

export type Authentication = Authenticated | Refusal;

/**
 * Turns a bearer token into the caller it names. Answers synchronously when
 * the answer is already known (a static token, a JWT verified before and not
 * yet expired), so the request gate keeps its synchronous fast path; a promise
 * when a JWT has to be verified (signature keys may have to be fetched).
 * Never throws and never rejects: an unusable token, an unreachable key
 * endpoint or a malformed key set is a Refusal, and the gate answers 401.
 */
export interface Authenticator {
  /** `token`: the credential after `Bearer `. */
  authenticate(token: string): Authentication | Promise<Authentication>;
  /**
   * Changes whenever a token that passed before may no longer pass (the
   * tokens file was re-read, the identity provider's key set changed):
   * whoever keeps a verdict (the gate, per
   * connection) keeps it only while this is unchanged and `until` is ahead.
   */
  readonly epoch: number;
}
