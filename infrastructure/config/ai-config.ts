import { int, type Env } from './env-parsers.js';

/** Budgets shared by every AI tool run (per-tool model-call caps are the use cases' own). */
export interface AiConfig {
  /** SVC_AI_TIMEOUT_MS: wall-clock limit of one tool run, milliseconds. */
  timeoutMs: number;
  /** SVC_AI_MAX_TOKENS: input + output tokens one tool run may spend. */
  maxTokens: number;
}

export function parseAiConfig(env: Env): AiConfig {
  return {
    timeoutMs: int(env, 'SVC_AI_TIMEOUT_MS', 300000, 1000, 3600000),
    maxTokens: int(env, 'SVC_AI_MAX_TOKENS', 1000000, 1000, 100000000),
  };
}
