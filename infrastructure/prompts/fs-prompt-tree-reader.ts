import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { PromptsSourceError } from '../../domain/errors.js';
import type { PromptLoadWarning, PromptSourceFile } from '../../domain/prompts/prompt.js';
import type { PromptTree, PromptTreeReader } from '../../domain/ports/prompt-tree-reader.js';

export interface TreeLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
  maxDepth: number;
}

export const DEFAULT_TREE_LIMITS: TreeLimits = {
  maxFiles: 1000,
  maxFileBytes: 1024 * 1024,
  maxTotalBytes: 16 * 1024 * 1024,
  maxDepth: 12,
};

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Reads a prompts folder from disk: regular files only, symlinks skipped, bounded. */
export class FsPromptTreeReader implements PromptTreeReader {
  constructor(private readonly limits: TreeLimits = DEFAULT_TREE_LIMITS) {}

  async read(root: string, subPath: string): Promise<PromptTree> {
    const realRoot = await realpath(root);
    let start: string;
    try {
      start = await realpath(path.join(realRoot, subPath));
    } catch {
      return { files: [], warnings: [], missing: true };
    }
    // a symlinked folder could point anywhere; the folder must stay inside the clone
    if (!isInside(realRoot, start) || !(await lstat(start)).isDirectory()) return { files: [], warnings: [], missing: true };
    const files: PromptSourceFile[] = [];
    const warnings: PromptLoadWarning[] = [];
    await this.walk(start, '', 0, files, warnings, { bytes: 0 });
    return { files, warnings, missing: false };
  }

  private async walk(
    dir: string,
    rel: string,
    depth: number,
    files: PromptSourceFile[],
    warnings: PromptLoadWarning[],
    total: { bytes: number },
  ): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === '.git') continue;
        if (depth + 1 > this.limits.maxDepth) {
          warnings.push({ path: relPath, reason: `folder nested deeper than ${this.limits.maxDepth} levels; skipped` });
          continue;
        }
        await this.walk(full, relPath, depth + 1, files, warnings, total);
        continue;
      }
      if (!entry.isFile()) {
        if (entry.isSymbolicLink()) warnings.push({ path: relPath, reason: 'symbolic link; skipped' });
        continue;
      }
      const info = await lstat(full);
      if (info.size > this.limits.maxFileBytes) {
        warnings.push({ path: relPath, reason: `larger than ${this.limits.maxFileBytes} bytes; skipped` });
        continue;
      }
      if (files.length >= this.limits.maxFiles) {
        throw new PromptsSourceError(`Prompt source holds more than ${this.limits.maxFiles} files; point path at the prompts folder`);
      }
      total.bytes += info.size;
      if (total.bytes > this.limits.maxTotalBytes) {
        throw new PromptsSourceError(
          `Prompt source holds more than ${Math.round(this.limits.maxTotalBytes / 1048576)} MiB of files; point path at the prompts folder`,
        );
      }
      files.push({ path: relPath, content: await readFile(full), mode: info.mode & 0o777 });
    }
  }
}
