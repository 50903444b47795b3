import type { PromptLoadWarning, PromptSourceFile } from '../prompts/prompt.js';

export interface PromptTree {
  files: PromptSourceFile[];
  /** Files skipped (symlinks, oversized files), with the reason. */
  warnings: PromptLoadWarning[];
  /** true when `subPath` does not exist (or is not a folder) inside the root. */
  missing: boolean;
}

/** Reads a folder of prompt files into memory, bounded. */
export interface PromptTreeReader {
  /**
   * Reads the regular files under `root/subPath` (subPath already normalised,
   * '' for the root), paths relative to that folder. Never follows a symlink
   * and never leaves `root`; skips `.git`. Throws PromptsSourceError when the
   * folder holds more files or bytes than the reader's limits.
   */
  read(root: string, subPath: string): Promise<PromptTree>;
}
