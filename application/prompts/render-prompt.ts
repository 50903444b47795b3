import { ERROR_CODES, NotFoundError } from '../../domain/errors.js';
import type { RenderedPrompt } from '../../domain/prompts/prompt.js';
import { renderPrompt, type PromptArgumentValues } from '../../domain/prompts/prompt-renderer.js';
import type { PromptSourceRequest, PromptSourceResolver } from './prompt-source-resolver.js';

export interface RenderPromptInput extends PromptSourceRequest {
  name: string;
  arguments?: PromptArgumentValues;
}

export type RenderPromptOutput = RenderedPrompt & { source: string };

/** POST /api/v1/prompts/:promptName: one prompt with its arguments substituted. */
export class RenderPrompt {
  constructor(private readonly sources: PromptSourceResolver) {}

  /** Throws NotFoundError(PROMPT_NOT_FOUND) for an unknown name, ValidationError for a missing required argument. */
  async execute(input: RenderPromptInput): Promise<RenderPromptOutput> {
    const { library, source } = await this.sources.resolve(input);
    const prompt = library.get(input.name);
    if (!prompt) throw new NotFoundError(ERROR_CODES.PROMPT_NOT_FOUND, `Prompt not found: ${input.name}`);
    return { ...renderPrompt(prompt, input.arguments), source };
  }
}
