import { ERROR_CODES, NotFoundError } from '../../domain/errors.js';
import type { Prompt, RenderedPrompt } from '../../domain/prompts/prompt.js';
import { renderPrompt, type PromptArgumentValues } from '../../domain/prompts/prompt-renderer.js';
import type { PromptSourceRequest, PromptSourceResolver, ResolvedPromptSource } from './prompt-source-resolver.js';

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
    return this.of(await this.sources.resolve(input), input.name, input.arguments);
  }

  /** The answer for a source already resolved; throws as `execute` does. */
  of(resolved: ResolvedPromptSource, name: string, args?: PromptArgumentValues): RenderPromptOutput {
    return { ...renderPrompt(this.promptOf(resolved, name), args), source: resolved.source };
  }

  /** The prompt `name` of a resolved source; throws NotFoundError(PROMPT_NOT_FOUND) for an unknown name. */
  promptOf({ library }: ResolvedPromptSource, name: string): Prompt {
    const prompt = library.get(name);
    if (!prompt) throw new NotFoundError(ERROR_CODES.PROMPT_NOT_FOUND, `Prompt not found: ${name}`);
    return prompt;
  }
}
