import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { normalizeSubPath } from '../../domain/prompts/repo-override.js';
import type { RepoTree } from '../../domain/ports/git-publisher.js';

const MAX_FILES = 5000;
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * A checkout read as a RepoTree: regular files only (symlinks are never
 * followed, so a link cannot read outside the checkout), `.git` skipped,
 * at most 5000 paths listed and 1 MiB read per file.
 */
export class FsRepoTree implements RepoTree {
  constructor(private readonly dir: string) {}

  async list(folder: string): Promise<string[]> {
    const start = normalizeSubPath(folder);
    const out: string[] = [];
    const walk = async (rel: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(path.join(this.dir, rel), { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (out.length >= MAX_FILES) return;
        const child = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.name === '.git') continue;
        if (entry.isDirectory()) await walk(child);
        else if (entry.isFile()) out.push(child);
      }
    };
    await walk(start);
    return out;
  }

  async read(file: string): Promise<string | undefined> {
    const rel = normalizeSubPath(file);
    if (!rel || rel.split('/').includes('.git')) return undefined;
    const full = path.join(this.dir, rel);
    try {
      const info = await lstat(full);
      if (!info.isFile() || info.size > MAX_FILE_BYTES) return undefined;
      return await readFile(full, 'utf8');
    } catch {
      return undefined;
    }
  }
}
