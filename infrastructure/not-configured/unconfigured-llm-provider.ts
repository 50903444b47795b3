import { NotConfiguredError } from '../../domain/errors.js';
import type { ChatResult } from '../../domain/llm/llm-types.js';
import type { LlmProvider, LlmStatus } from '../../domain/ports/llm-provider.js';

import { PROVIDER_HINTS } from '../llm/provider-status.js';

const HINT = PROVIDER_HINTS.none;

/** The AI provider when the default provider (openai) has no OPENAI_API_KEY. */
export class UnconfiguredLlmProvider implements LlmProvider {
  status(): LlmStatus {
    return { configured: false, provider: 'none', hint: HINT };
  }
  async chat(): Promise<ChatResult> {
    throw new NotConfiguredError('The AI provider', HINT);
  }
}
