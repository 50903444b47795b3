import { NotConfiguredError } from '../../domain/errors.js';
import type { ChatResult } from '../../domain/llm/llm-types.js';
import type { LlmProvider, LlmStatus } from '../../domain/ports/llm-provider.js';

const HINT = 'set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server)';

/** The AI provider when OPENAI_API_KEY is not set. */
export class UnconfiguredLlmProvider implements LlmProvider {
  status(): LlmStatus {
    return { configured: false, provider: 'none', hint: HINT };
  }
  async chat(): Promise<ChatResult> {
    throw new NotConfiguredError('The AI provider', HINT);
  }
}
