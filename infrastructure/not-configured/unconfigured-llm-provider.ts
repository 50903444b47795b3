import type { LlmProvider, LlmStatus } from '../../domain/ports/llm-provider.js';

/** The AI provider when OPENAI_API_KEY is not set. */
export class UnconfiguredLlmProvider implements LlmProvider {
  status(): LlmStatus {
    return { configured: false, provider: 'none', hint: 'set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server)' };
  }
}
