import { CredentialWithheldError } from '../../domain/prompts/clone-credential.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { PromptSourceRequest, PromptSourceResolver } from './prompt-source-resolver.js';

export interface RefreshPromptsOutput {
  refreshed: boolean;
  promptsLoaded: number;
  source: string;
}

/**
 * POST /api/v1/prompts/refresh: reloads the resolved source now, whatever the
 * TTL. When the host rules withheld the credential the refresh is not an
 * error: `refreshed` is false and any cached copy keeps being served.
 */
export class RefreshPrompts {
  constructor(
    private readonly sources: PromptSourceResolver,
    private readonly logger: Logger,
  ) {}

  async execute(input: PromptSourceRequest): Promise<RefreshPromptsOutput> {
    try {
      const { library, source } = await this.sources.resolve(input, true);
      return { refreshed: true, promptsLoaded: library.size, source };
    } catch (e) {
      if (!(e instanceof CredentialWithheldError)) throw e;
      this.logger.warn('prompts refresh skipped: credential withheld by the host rules', { source: e.source, reason: e.message });
      return { refreshed: false, promptsLoaded: this.sources.cachedCount(e.sourceIdentity), source: e.source };
    }
  }
}
