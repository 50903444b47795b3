import type { StructuredOutputMode } from '../llm/openai-llm-provider.js';
import { parseAwsConfig, type AwsConfig } from './aws-config.js';
import { ConfigError, httpUrl, int, oneOf, str, type Env } from './env-parsers.js';
import { parseLlmHeaders } from './llm-headers.js';

export const DEFAULT_LLM_MODEL = 'gpt-4o';
export const LLM_PROVIDERS = ['openai', 'anthropic', 'bedrock'] as const;
export type LlmProviderName = (typeof LLM_PROVIDERS)[number];

/** SVC_LLM_PROVIDER=anthropic: the Messages API. */
export interface AnthropicConfig {
  apiKey: string;
  /** ANTHROPIC_BASE_URL; undefined: https://api.anthropic.com. */
  baseUrl?: string;
}

/**
 * The chat model backend. With the default provider (openai) an unset
 * OPENAI_API_KEY selects the not-configured provider; anthropic and bedrock
 * refuse to start without their settings.
 */
export interface LlmConfig {
  /** SVC_LLM_PROVIDER. */
  provider: LlmProviderName;
  /** OPENAI_API_KEY (provider openai). */
  apiKey?: string;
  /** OPENAI_BASE_URL; undefined: the SDK's default, https://api.openai.com/v1. */
  baseUrl?: string;
  anthropic?: AnthropicConfig;
  bedrock?: AwsConfig;
  /** SVC_LLM_HEADERS: sent with every model request; the values are secrets (never logged or shown). */
  secretHeaders: Record<string, string>;
  model: string;
  /** Per-request timeout, milliseconds. */
  timeoutMs: number;
  /** Retries of 408/409/429/5xx (and 529, throttling) and connection errors, with the SDK's backoff. */
  maxRetries: number;
  /** SVC_LLM_STRUCTURED_OUTPUT: how structured answers are requested from an OpenAI-compatible backend. */
  structuredOutput: StructuredOutputMode;
}

const MODEL = /^[\x21-\x7e]{1,200}$/;

function key(env: Env, name: string): string | undefined {
  const v = str(env, name);
  if (v !== undefined && /\s/.test(v)) throw new ConfigError(name, 'must not contain whitespace');
  return v;
}

function parseAnthropic(env: Env): AnthropicConfig {
  const apiKey = key(env, 'ANTHROPIC_API_KEY');
  if (apiKey === undefined) throw new ConfigError('ANTHROPIC_API_KEY', 'must be set when SVC_LLM_PROVIDER is anthropic');
  const baseUrl = httpUrl(env, 'ANTHROPIC_BASE_URL');
  return { apiKey, ...(baseUrl !== undefined ? { baseUrl } : {}) };
}

export function parseLlmConfig(env: Env): LlmConfig {
  const provider = oneOf(env, 'SVC_LLM_PROVIDER', LLM_PROVIDERS, 'openai');
  const model = str(env, 'SVC_LLM_MODEL') ?? (provider === 'openai' ? DEFAULT_LLM_MODEL : undefined);
  if (model === undefined) throw new ConfigError('SVC_LLM_MODEL', `must be set when SVC_LLM_PROVIDER is ${provider} (the model or inference-profile id)`);
  if (!MODEL.test(model)) throw new ConfigError('SVC_LLM_MODEL', 'must be a model name without spaces (1 to 200 characters)');
  return {
    provider,
    apiKey: provider === 'openai' ? key(env, 'OPENAI_API_KEY') : undefined,
    baseUrl: provider === 'openai' ? httpUrl(env, 'OPENAI_BASE_URL') : undefined,
    ...(provider === 'anthropic' ? { anthropic: parseAnthropic(env) } : {}),
    ...(provider === 'bedrock' ? { bedrock: parseAwsConfig(env, 'SVC_LLM_PROVIDER=bedrock') } : {}),
    secretHeaders: parseLlmHeaders(env),
    model,
    timeoutMs: int(env, 'SVC_LLM_TIMEOUT_MS', 120000, 1000, 600000),
    maxRetries: int(env, 'SVC_LLM_MAX_RETRIES', 2, 0, 10),
    structuredOutput: oneOf(env, 'SVC_LLM_STRUCTURED_OUTPUT', ['json_schema', 'json_object', 'none'] as const, 'json_schema'),
  };
}
