import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { CloneWorkspace } from '../../domain/ports/clone-workspace.js';
import type { Logger } from '../../domain/ports/logger.js';

/**
 * Clone directories under `<SVC_DATA_DIR>/<folder>` (`prompt-clones` for the
 * prompt library, `git-deliveries` for pushes). Clones left over
 * from an earlier process are removed on first use: the cache is in memory,
 * so nothing refers to them any more.
 */
export class DataDirCloneWorkspace implements CloneWorkspace {
  private readonly base: string;
  private prepared?: Promise<void>;

  constructor(
    dataDir: string,
    private readonly logger: Logger,
    folder = 'prompt-clones',
  ) {
    this.base = path.resolve(dataDir, folder);
  }

  async allocate(): Promise<string> {
    this.prepared ??= this.prepare().catch((e) => {
      this.prepared = undefined; // retried by the next clone
      throw e;
    });
    await this.prepared;
    return path.join(this.base, randomUUID());
  }

  async release(dir: string): Promise<void> {
    const resolved = path.resolve(dir);
    if (path.dirname(resolved) !== this.base) {
      this.logger.error('refusing to remove a folder outside the clone workspace', { dir: resolved });
      return;
    }
    try {
      await rm(resolved, { recursive: true, force: true });
    } catch (e) {
      this.logger.warn('could not remove a clone folder', { dir: resolved, error: (e as Error).message });
    }
  }

  private async prepare(): Promise<void> {
    await mkdir(this.base, { recursive: true });
    for (const stale of await readdir(this.base)) await this.release(path.join(this.base, stale));
  }
}
