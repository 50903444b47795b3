import type { PromptSummary } from '../../domain/prompts/prompt.js';
import type { PromptSourceRequest, PromptSourceResolver, ResolvedPromptSource } from './prompt-source-resolver.js';

export interface ListPromptsOutput {
  prompts: PromptSummary[];
  source: string;
}

/** GET /api/v1/prompts: every prompt's metadata from the resolved source. */
export class ListPrompts {
  constructor(private readonly sources: PromptSourceResolver) {}

  async execute(input: PromptSourceRequest): Promise<ListPromptsOutput> {
    return this.of(await this.sources.resolve(input));
  }

  /** The answer for a source already resolved (the HTTP layer keeps it ready while that source stays current). */
  of({ library, source }: ResolvedPromptSource): ListPromptsOutput {
    return { prompts: library.list(), source };
  }
}
