import type { StructuredOutputMode } from '../llm/openai-llm-provider.js';
import { ConfigError, httpUrl, int, oneOf, str, type Env } from './env-parsers.js';

export const DEFAULT_LLM_MODEL = 'gpt-4o';

/** The OpenAI-compatible chat provider; `apiKey` undefined selects the not-configured provider. */
export interface LlmConfig {
  apiKey?: string;
  /** undefined: the SDK's default, https://api.openai.com/v1. */
  baseUrl?: string;
  model: string;
  /** Per-request timeout, milliseconds. */
  timeoutMs: number;
  /** Retries of 408/409/429/5xx and connection errors, with the SDK's backoff. */
  maxRetries: number;
  /** SVC_LLM_STRUCTURED_OUTPUT: how structured answers are requested from the backend. */
  structuredOutput: StructuredOutputMode;
}

const MODEL = /^[\x21-\x7e]{1,200}$/;

export function parseLlmConfig(env: Env): LlmConfig {
  const model = str(env, 'SVC_LLM_MODEL') ?? DEFAULT_LLM_MODEL;
  if (!MODEL.test(model)) throw new ConfigError('SVC_LLM_MODEL', 'must be a model name without spaces (1 to 200 characters)');
  const apiKey = str(env, 'OPENAI_API_KEY');
  if (apiKey !== undefined && /\s/.test(apiKey)) throw new ConfigError('OPENAI_API_KEY', 'must not contain whitespace');
  return {
    apiKey,
    baseUrl: httpUrl(env, 'OPENAI_BASE_URL'),
    model,
    timeoutMs: int(env, 'SVC_LLM_TIMEOUT_MS', 120000, 1000, 600000),
    maxRetries: int(env, 'SVC_LLM_MAX_RETRIES', 2, 0, 10),
    structuredOutput: oneOf(env, 'SVC_LLM_STRUCTURED_OUTPUT', ['json_schema', 'json_object', 'none'] as const, 'json_schema'),
  };
}
