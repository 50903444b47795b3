import { bool, int, type Env } from './env-parsers.js';

/** Per-caller request budgets (per bearer token and per client address), one window each. */
export interface RateLimitConfig {
  enabled: boolean;
  windowMs: number;
  /** Requests per window to the AI tools (every POST /api/v1/tools/* but version). */
  aiPerWindow: number;
  /** Requests per window to everything else (/healthz is never counted). */
  otherPerWindow: number;
}

export function parseRateLimitConfig(env: Env): RateLimitConfig {
  return {
    enabled: bool(env, 'SVC_RATE_LIMIT_ENABLED', true),
    windowMs: int(env, 'SVC_RATE_LIMIT_WINDOW_S', 60, 1, 86400) * 1000,
    aiPerWindow: int(env, 'SVC_RATE_LIMIT_AI', 120, 1, 10_000_000),
    otherPerWindow: int(env, 'SVC_RATE_LIMIT_OTHER', 6000, 1, 100_000_000),
  };
}
