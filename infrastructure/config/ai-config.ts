import { int, oneOf, str, type Env } from './env-parsers.js';

/** Budgets shared by every AI tool run (per-tool model-call caps are the use cases' own). */
export interface AiConfig {
  /** SVC_AI_TIMEOUT_MS: wall-clock limit of one tool run, milliseconds. */
  timeoutMs: number;
  /** SVC_AI_MAX_TOKENS: input + output tokens one tool run may spend. */
  maxTokens: number;
  /** SVC_ROLLOUT_POLL_MS: how often remediate and operate read a changed workload while they wait for its rollout, default 1000. */
  rolloutPollMs: number;
  /** The verdict after an execution (docs/verify.md). */
  verify: {
    /** SVC_VERIFY_WINDOW_MS: how long changed objects are watched after a write, default 60000 (the run's deadline lowers it). */
    windowMs: number;
    /** SVC_ON_FAILURE_DEFAULT: onFailure when a call sends none; unset: report for manual execution, revert for automatic. */
    onFailureDefault?: 'revert' | 'report';
    /** SVC_VERIFY_STABLE_MS: every changed object healthy for this long ends the window early, default 5000. */
    stableMs: number;
    /** SVC_VERIFY_ANSWER_MS: how long a call waits for rollouts and the verdict before it answers with the verdict so far, default 10000. */
    answerMs: number;
  };
}

export function parseAiConfig(env: Env): AiConfig {
  return {
    timeoutMs: int(env, 'SVC_AI_TIMEOUT_MS', 300000, 1000, 3600000),
    maxTokens: int(env, 'SVC_AI_MAX_TOKENS', 1000000, 1000, 100000000),
    rolloutPollMs: int(env, 'SVC_ROLLOUT_POLL_MS', 1000, 10, 60000),
    verify: {
      windowMs: int(env, 'SVC_VERIFY_WINDOW_MS', 60000, 0, 3600000),
      stableMs: int(env, 'SVC_VERIFY_STABLE_MS', 5000, 0, 3600000),
      answerMs: int(env, 'SVC_VERIFY_ANSWER_MS', 10000, 0, 600000),
      ...(str(env, 'SVC_ON_FAILURE_DEFAULT') !== undefined
        ? { onFailureDefault: oneOf(env, 'SVC_ON_FAILURE_DEFAULT', ['revert', 'report'] as const, 'report') }
        : {}),
    },
  };
}
