import { PromptLibrary } from '../../domain/prompts/prompt-library.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { PromptTreeReader } from '../../domain/ports/prompt-tree-reader.js';

/** The prompts shipped with the service, read once from their folder and kept. */
export class BuiltinPrompts {
  private loaded?: Promise<PromptLibrary>;
  /** The library `loaded` settled with, while it is still the current load. */
  private settled?: PromptLibrary;

  constructor(
    private readonly dir: string,
    private readonly reader: PromptTreeReader,
    private readonly logger: Logger,
  ) {}

  /** `reload` reads the folder again (refresh). */
  get(reload = false): Promise<PromptLibrary> {
    if (!this.loaded || reload) {
      const loading = this.read();
      // a failed read is retried next time rather than cached
      loading.then(
        (library) => {
          if (this.loaded === loading) this.settled = library;
        },
        () => {
          if (this.loaded === loading) this.loaded = undefined;
        },
      );
      this.loaded = loading;
      this.settled = undefined;
    }
    return this.loaded;
  }

  /** The library `get()` would answer with now, once it is read; undefined while a (re)load is under way. */
  peek(): PromptLibrary | undefined {
    return this.settled;
  }

  private async read(): Promise<PromptLibrary> {
    const tree = await this.reader.read(this.dir, '');
    if (tree.missing) this.logger.error('built-in prompts folder is missing', { dir: this.dir });
    const library = PromptLibrary.fromFiles(tree.files);
    for (const w of [...tree.warnings, ...library.warnings]) {
      this.logger.warn('skipping prompt file', { source: 'built-in', file: w.path, reason: w.reason });
    }
    return library;
  }
}
