import type { PromptSourceFile } from '../../domain/prompts/prompt.js';
import type { CloneWorkspace } from '../../domain/ports/clone-workspace.js';
import { GitFetchError, type CloneOutcome, type CloneRequest, type GitFetcher } from '../../domain/ports/git-fetcher.js';
import type { PromptTree, PromptTreeReader } from '../../domain/ports/prompt-tree-reader.js';

/** In-memory "disk" shared by the fakes below: folder -> files. */
export class FakeDisk {
  readonly dirs = new Map<string, PromptSourceFile[]>();
}

/** Hands out /clones/N and forgets released ones; `live` is what is on "disk". */
export class FakeWorkspace implements CloneWorkspace {
  private n = 0;
  readonly live = new Set<string>();
  constructor(private readonly disk: FakeDisk) {}
  async allocate(): Promise<string> {
    const dir = `/clones/${++this.n}`;
    this.live.add(dir);
    return dir;
  }
  async release(dir: string): Promise<void> {
    this.live.delete(dir);
    this.disk.dirs.delete(dir);
  }
}

export class FakeTreeReader implements PromptTreeReader {
  constructor(private readonly disk: FakeDisk) {}
  async read(root: string, subPath: string): Promise<PromptTree> {
    const all = this.disk.dirs.get(root);
    if (!all) return { files: [], warnings: [], missing: true };
    const prefix = subPath ? `${subPath}/` : '';
    const files = all.filter((f) => f.path.startsWith(prefix)).map((f) => ({ ...f, path: f.path.slice(prefix.length) }));
    return { files, warnings: [], missing: subPath !== '' && files.length === 0 };
  }
}

/** What a fake remote does for a URL: serve files per branch, demand a token, fail, or answer with a non-repo page. */
export interface FakeRemote {
  branches?: Record<string, PromptSourceFile[]>;
  /** Only this token gets in; others (and none) get a 401. */
  requiresToken?: string;
  fail?: GitFetchError;
  notARepository?: boolean;
}

/**
 * A GitFetcher over in-memory remotes, keyed by URL without userinfo or query. Records
 * each clone (with the token it carried) so tests can see which credential went out.
 */
export class FakeGitFetcher implements GitFetcher {
  readonly remotes = new Map<string, FakeRemote>();
  readonly clones: CloneRequest[] = [];
  /** When set, clones wait for it (to hold several requests in flight). */
  gate?: Promise<void>;

  constructor(private readonly disk: FakeDisk) {}

  async clone(request: CloneRequest): Promise<CloneOutcome> {
    this.clones.push(request);
    if (this.gate) await this.gate;
    const u = new URL(request.url);
    u.username = '';
    u.password = '';
    u.search = '';
    const remote = this.remotes.get(u.href.replace(/\/+$/, ''));
    const prefix = `Failed to clone ${request.displayUrl} (branch ${request.branch})`;
    if (!remote) throw new GitFetchError(`${prefix}: HTTP Error: 404 Not Found`, 404);
    if (remote.fail) throw remote.fail;
    if (remote.notARepository) return 'not-a-repository';
    if (remote.requiresToken && request.token !== remote.requiresToken) {
      throw new GitFetchError(`${prefix}: HTTP Error: 401 Unauthorized`, 401, !request.token);
    }
    const files = remote.branches?.[request.branch];
    if (!files) throw new GitFetchError(`${prefix}: branch ${request.branch} not found`);
    this.disk.dirs.set(request.dir, files);
    return 'cloned';
  }
}
