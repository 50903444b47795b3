import { ValidationError } from '../domain/errors.js';
import { PromptLibrary } from '../domain/prompts/prompt-library.js';
import type { IngestedSourceStore } from '../domain/ports/ingested-source-store.js';
import type { Logger } from '../domain/ports/logger.js';
import type { IngestedSource } from '../domain/uploads/ingested-source.js';
import { displaySource, sourceKey } from '../domain/uploads/source-identifier.js';

export interface ResolvedIngestedSource {
  library: PromptLibrary;
  /** The identifier, credentials scrubbed (SPEC.md's `source` field for a `?source=` request). */
  source: string;
}

/** The name a root-level SKILL.md without a `name` gets: the label, or the repository's last path segment. */
export function rootSkillName(identifier: string): string {
  if (identifier.startsWith('local:')) return identifier.slice('local:'.length) || 'skill';
  const path =
    identifier
      .replace(/[?#].*$/, '')
      .split(/[/:]/)
      .filter(Boolean)
      .pop() ?? '';
  return path.replace(/\.git$/, '') || 'skill';
}

/**
 * Prompts of an uploaded skill source (`?source=<identifier>`): read from the
 * in-memory store only, never fetched from anywhere, so a source that is not
 * cached is the caller's to upload again. The parsed library is kept beside
 * the cached entry it came from (a WeakMap: it goes when the entry is evicted
 * or replaced), so repeated renders do not parse the files again.
 */
export class IngestedPromptSource {
  private readonly libraries = new WeakMap<IngestedSource, PromptLibrary>();

  constructor(
    private readonly store: IngestedSourceStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Throws ValidationError `Ingested source not found: <id>` (scrubbed) with the
   * re-upload instruction when the identifier was never uploaded, was evicted,
   * or was lost on a restart.
   */
  async resolve(identifier: string): Promise<ResolvedIngestedSource> {
    const source = displaySource(identifier);
    const entry = await this.store.get(sourceKey(identifier));
    if (!entry) {
      throw new ValidationError(
        `Ingested source not found: ${source}. It was never uploaded, was evicted from the server's cache, or was lost on a restart; ` +
          'upload it again with POST /api/v1/prompts/sources, then repeat this request.',
      );
    }
    let library = this.libraries.get(entry);
    if (!library) {
      library = PromptLibrary.fromFiles(entry.files, rootSkillName(identifier));
      for (const w of library.warnings) this.logger.warn('skipping prompt file', { source, file: w.path, reason: w.reason });
      this.libraries.set(entry, library);
    }
    return { library, source };
  }
}
