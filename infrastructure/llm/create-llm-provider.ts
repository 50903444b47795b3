import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { LlmConfig } from '../config/llm-config.js';
import { UnconfiguredLlmProvider } from '../not-configured/unconfigured-llm-provider.js';

/** OPENAI_API_KEY set: the OpenAI-compatible provider; otherwise the not-configured one. */
export function createLlmProvider(config: LlmConfig): LlmProvider {
  if (config.apiKey === undefined) return new UnconfiguredLlmProvider();
  // the openai SDK is loaded only when a provider is configured
  const { OpenAiLlmProvider } = require('./openai-llm-provider.js') as typeof import('./openai-llm-provider.js');
  return new OpenAiLlmProvider({
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    model: config.model,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    structuredOutput: config.structuredOutput,
  });
}
