import type { LlmStatus } from '../../domain/ports/llm-provider.js';

/** What `version` says about each provider's settings (its `hint`). */
export const PROVIDER_HINTS = {
  openai: 'SVC_LLM_PROVIDER=openai: OPENAI_API_KEY, OPENAI_BASE_URL (any OpenAI-compatible server), SVC_LLM_MODEL, SVC_LLM_HEADERS',
  anthropic: 'SVC_LLM_PROVIDER=anthropic: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, SVC_LLM_MODEL, SVC_LLM_HEADERS',
  bedrock:
    'SVC_LLM_PROVIDER=bedrock: AWS_REGION, SVC_LLM_MODEL (model or inference-profile id), AWS credentials from the default chain (IRSA, EKS Pod Identity, instance role), SVC_LLM_HEADERS',
  none: 'set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server), or SVC_LLM_PROVIDER=anthropic (ANTHROPIC_API_KEY) or bedrock (AWS_REGION, SVC_LLM_MODEL)',
} as const;

/** `{ headers: [...names] }` for a status when SVC_LLM_HEADERS names any; values never leave. */
export function headerNames(headers: Record<string, string> | undefined): { headers?: string[] } {
  const names = Object.keys(headers ?? {});
  return names.length ? { headers: names } : {};
}

/**
 * The status of a configured provider that answers through tool blocks
 * (Anthropic, Bedrock): the forced answer tool carries the schema; without it
 * the caller puts the schema in the instructions.
 */
export function blockProviderStatus(
  provider: 'anthropic' | 'bedrock',
  options: { model: string; forceAnswerTool: boolean; headers?: Record<string, string> },
): LlmStatus {
  return {
    configured: true,
    provider,
    model: options.model,
    hint: PROVIDER_HINTS[provider],
    ...headerNames(options.headers),
    structuredOutput: options.forceAnswerTool ? 'json_schema' : 'none',
  };
}
