import type { PromptSummary } from '../../domain/prompts/prompt.js';
import type { PromptSourceRequest, PromptSourceResolver } from './prompt-source-resolver.js';

export interface ListPromptsOutput {
  prompts: PromptSummary[];
  source: string;
}

/** GET /api/v1/prompts: every prompt's metadata from the resolved source. */
export class ListPrompts {
  constructor(private readonly sources: PromptSourceResolver) {}

  async execute(input: PromptSourceRequest): Promise<ListPromptsOutput> {
    const { library, source } = await this.sources.resolve(input);
    return { prompts: library.list(), source };
  }
}
