import { createHmac, randomBytes } from 'node:crypto';
import type { CloneCredential } from '../../domain/prompts/clone-credential.js';
import { PromptLibrary } from '../../domain/prompts/prompt-library.js';
import type { RepoLocation } from '../../domain/prompts/repo-override.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { CloneWorkspace } from '../../domain/ports/clone-workspace.js';
import type { GitFetcher } from '../../domain/ports/git-fetcher.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { PromptTreeReader } from '../../domain/ports/prompt-tree-reader.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { ConcurrencyLimit } from './concurrency-limit.js';

/** `shared`: configured repo and header-less overrides. `credentialed`: requests carrying X-Svc-Git-Token. */
export type CacheSlotName = 'shared' | 'credentialed';

/** Immutable once passed: the cache remembers each request object's key. */
export interface RepoLoadRequest {
  readonly location: RepoLocation;
  readonly credential: CloneCredential;
  readonly refuseNonPublicRedirects: boolean;
}

export interface PromptRepoCacheDeps {
  fetcher: GitFetcher;
  workspace: CloneWorkspace;
  reader: PromptTreeReader;
  clock: Clock;
  logger: Logger;
  tracer: Tracer;
}

export interface PromptRepoCacheOptions {
  ttlMs: number;
  cloneTimeoutMs: number;
  maxConcurrentClones: number;
}

interface Entry {
  key: string;
  identity: string;
  library: PromptLibrary;
  /** The clone directory; removed when the entry is replaced. */
  dir?: string;
  loadedAt: number;
}

interface Slot {
  entry?: Entry;
  inflight: Map<string, Promise<Entry>>;
}

/** Scrubbed source, branch and folder: names a cached copy without any secret. */
export function sourceIdentity(location: RepoLocation): string {
  return JSON.stringify([location.source, location.branch, location.subPath]);
}

/**
 * The cloned-repo prompt cache: two single-repo slots (SPEC.md: one repo at a
 * time, so alternating repos re-clone; header requests apart from the shared
 * slot). An entry serves only requests with the same URL, branch, folder and
 * credential; the key is an HMAC under a per-process secret, so it never holds
 * a token. Concurrent loads of one key share a single clone.
 */
export class PromptRepoCache {
  private readonly slots: Record<CacheSlotName, Slot> = {
    shared: { inflight: new Map() },
    credentialed: { inflight: new Map() },
  };
  private readonly keySecret = randomBytes(32);
  /** Keys of the (immutable) requests callers load and peek with again and again: the HMAC is computed once per request object. */
  private readonly peekedKeys = new WeakMap<RepoLoadRequest, string>();
  private readonly clones: ConcurrencyLimit;

  constructor(
    private readonly deps: PromptRepoCacheDeps,
    private readonly options: PromptRepoCacheOptions,
  ) {
    this.clones = new ConcurrencyLimit(options.maxConcurrentClones);
  }

  /** The library for `request`, from the slot when fresh (and `force` is false), else from a new clone. */
  async load(slotName: CacheSlotName, request: RepoLoadRequest, force = false): Promise<PromptLibrary> {
    const slot = this.slots[slotName];
    const key = this.keyFor(request);
    const current = slot.entry;
    if (!force && current?.key === key && this.deps.clock.now() - current.loadedAt < this.options.ttlMs) {
      return current.library;
    }
    let pending = slot.inflight.get(key);
    if (!pending) {
      pending = this.fetchEntry(slotName, request, key)
        .then((entry) => this.install(slot, entry))
        .finally(() => slot.inflight.delete(key));
      slot.inflight.set(key, pending);
    }
    return (await pending).library;
  }

  /**
   * The library `load` would answer `request` with right now without cloning:
   * the slot's entry when it holds the same key and is within the TTL, else
   * undefined. Never loads. A refresh or a new clone installs a new library
   * object, so callers may use the returned object's identity as its version.
   */
  peek(slotName: CacheSlotName, request: RepoLoadRequest): PromptLibrary | undefined {
    const current = this.slots[slotName].entry;
    if (!current || this.deps.clock.now() - current.loadedAt >= this.options.ttlMs) return undefined;
    return current.key === this.keyFor(request) ? current.library : undefined;
  }

  /** Prompt count of a cached copy of that source (any slot, any credential), if one is held. */
  cachedCount(identity: string): number | undefined {
    const hit = Object.values(this.slots).find((s) => s.entry?.identity === identity);
    return hit?.entry?.library.size;
  }

  /** The key of `request`, computed once per request object (callers that repeat a request pass the same object). */
  private keyFor(request: RepoLoadRequest): string {
    let key = this.peekedKeys.get(request);
    if (key === undefined) this.peekedKeys.set(request, (key = this.keyOf(request)));
    return key;
  }

  private keyOf(r: RepoLoadRequest): string {
    const token = r.credential.kind === 'none' ? '' : r.credential.token;
    const material = JSON.stringify([r.location.url, r.location.branch, r.location.subPath, r.credential.kind, token]);
    return createHmac('sha256', this.keySecret).update(material).digest('hex');
  }

  private async install(slot: Slot, entry: Entry): Promise<Entry> {
    const previous = slot.entry;
    slot.entry = entry;
    // the replaced copy is already out of the slot; its folder goes before the answer does
    if (previous?.dir && previous.dir !== entry.dir) await this.deps.workspace.release(previous.dir);
    return entry;
  }

  private async fetchEntry(slotName: CacheSlotName, request: RepoLoadRequest, key: string): Promise<Entry> {
    const { location, credential } = request;
    const { fetcher, workspace, reader, logger, tracer, clock } = this.deps;
    const dir = await workspace.allocate();
    try {
      const outcome = await this.clones.run(() =>
        tracer.inSpan(
          'git.clone',
          { 'vcs.repository.url.full': location.source, 'vcs.ref.head.name': location.branch, 'svc.prompts.cache_slot': slotName },
          () =>
            fetcher.clone({
              url: location.url,
              displayUrl: location.source,
              branch: location.branch,
              dir,
              token: credential.kind === 'none' ? undefined : credential.token,
              timeoutMs: this.options.cloneTimeoutMs,
              refuseNonPublicRedirects: request.refuseNonPublicRedirects,
            }),
          'client',
        ),
      );
      const base = { key, identity: sourceIdentity(location), loadedAt: clock.now() };
      if (outcome === 'not-a-repository') {
        logger.warn('prompt source answered 200 but is not a git repository; serving no prompts', { source: location.source });
        await workspace.release(dir);
        return { ...base, library: PromptLibrary.empty() };
      }
      const tree = await reader.read(dir, location.subPath);
      if (tree.missing) logger.warn('prompt folder not found in repository', { source: location.source, path: location.subPath });
      const library = PromptLibrary.fromFiles(tree.files, rootSkillName(location));
      for (const w of [...tree.warnings, ...library.warnings]) {
        logger.warn('skipping prompt file', { source: location.source, file: w.path, reason: w.reason });
      }
      logger.info('prompts loaded', { source: location.source, branch: location.branch, path: location.subPath, prompts: library.size });
      return { ...base, library, dir };
    } catch (e) {
      await workspace.release(dir);
      throw e;
    }
  }
}

/** A repo (or folder) that is itself one skill is named after its folder or repo. */
function rootSkillName(location: RepoLocation): string {
  const last = (s: string) => s.split('/').filter(Boolean).pop() ?? '';
  const fromPath = last(location.subPath);
  if (fromPath) return fromPath;
  const fromUrl = last(new URL(location.url).pathname).replace(/\.git$/, '');
  return fromUrl || 'skill';
}
