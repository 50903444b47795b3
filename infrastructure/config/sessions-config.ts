import { int, type Env } from './env-parsers.js';

export interface SessionsConfig {
  /** SVC_SESSION_TTL: seconds a session lives after its create or last update. */
  ttlSeconds: number;
}

/** One day: long enough to come back to a half-answered deployment the next morning. */
export const DEFAULT_SESSION_TTL_SECONDS = 86_400;
/** A minute at least (the sweep's period); thirty days at most. */
export const MIN_SESSION_TTL_SECONDS = 60;
export const MAX_SESSION_TTL_SECONDS = 2_592_000;

export function parseSessionsConfig(env: Env): SessionsConfig {
  return {
    ttlSeconds: int(env, 'SVC_SESSION_TTL', DEFAULT_SESSION_TTL_SECONDS, MIN_SESSION_TTL_SECONDS, MAX_SESSION_TTL_SECONDS),
  };
}
