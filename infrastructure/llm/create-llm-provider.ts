import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { LlmConfig } from '../config/llm-config.js';
import { UnconfiguredLlmProvider } from '../not-configured/unconfigured-llm-provider.js';

/**
 * SVC_LLM_PROVIDER's adapter. Each SDK is loaded only when its provider is
 * configured (start-up time and memory of every other configuration); the
 * default provider without OPENAI_API_KEY is the not-configured one.
 */
export function createLlmProvider(config: LlmConfig): LlmProvider {
  const common = { model: config.model, timeoutMs: config.timeoutMs, maxRetries: config.maxRetries, headers: config.secretHeaders };
  // tool-forced answers unless SVC_LLM_STRUCTURED_OUTPUT=none (models that cannot be forced to one tool)
  const forceAnswerTool = config.structuredOutput !== 'none';
  if (config.provider === 'anthropic' && config.anthropic) {
    const { AnthropicLlmProvider } = require('./anthropic-llm-provider.js') as typeof import('./anthropic-llm-provider.js');
    return new AnthropicLlmProvider({ ...common, apiKey: config.anthropic.apiKey, baseUrl: config.anthropic.baseUrl, forceAnswerTool });
  }
  if (config.provider === 'bedrock' && config.bedrock) {
    const { BedrockLlmProvider } = require('./bedrock-llm-provider.js') as typeof import('./bedrock-llm-provider.js');
    return new BedrockLlmProvider({ ...common, aws: config.bedrock, forceAnswerTool });
  }
  if (config.apiKey === undefined) return new UnconfiguredLlmProvider();
  const { OpenAiLlmProvider } = require('./openai-llm-provider.js') as typeof import('./openai-llm-provider.js');
  return new OpenAiLlmProvider({ ...common, apiKey: config.apiKey, baseUrl: config.baseUrl, structuredOutput: config.structuredOutput });
}
