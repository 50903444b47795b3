import { selectCloneCredential } from '../../domain/prompts/clone-credential.js';
import type { PromptLibrary } from '../../domain/prompts/prompt-library.js';
import { validateRepoOverride, type RepoLocation, type RepoOverrideInput } from '../../domain/prompts/repo-override.js';
import type { IngestedPromptSource } from '../ingested-prompt-source.js';
import type { BuiltinPrompts } from './builtin-prompts.js';
import { explainCloneFailure } from './explain-clone-failure.js';
import type { PromptRepoCache, RepoLoadRequest } from './prompt-repo-cache.js';
import type { PromptSourceSettings } from './prompt-source-settings.js';

export const BUILT_IN_SOURCE = 'built-in';

/** Where a prompts request wants its prompts from, plus the per-request credential header. */
export interface PromptSourceRequest extends RepoOverrideInput {
  /** `X-Svc-Git-Token`; used only with `repo`. */
  gitToken?: string;
  /** `?source=`: identifier of an uploaded skill source; takes precedence over `repo` and never reaches git. */
  source?: string;
}

export interface ResolvedPromptSource {
  library: PromptLibrary;
  /** SPEC.md's `source` field: scrubbed URL or `built-in`. */
  source: string;
}

/**
 * SPEC.md's source rules: `repo` overrides the configured repo, which
 * overrides the built-ins. Validation runs first, so a rejected override
 * never reaches a clone or the cache.
 */
export class PromptSourceResolver {
  private defaultLoad?: RepoLoadRequest;
  private peeked?: ResolvedPromptSource;

  constructor(
    private readonly settings: PromptSourceSettings,
    private readonly cache: PromptRepoCache,
    private readonly builtins: BuiltinPrompts,
    private readonly ingested?: IngestedPromptSource,
  ) {}

  async resolve(request: PromptSourceRequest, force = false): Promise<ResolvedPromptSource> {
    if (request.source !== undefined) {
      if (!this.ingested) throw new Error('uploaded skill sources are not wired into the prompt source resolver');
      return this.ingested.resolve(request.source);
    }
    const override = validateRepoOverride(request);
    const location = override ?? this.settings.configuredRepo;
    if (!location) return { library: await this.builtins.get(force), source: BUILT_IN_SOURCE };

    // without an override the request is the configured one (the header has no effect on it)
    const load: RepoLoadRequest = override
      ? {
          location,
          credential: selectCloneCredential({
            override,
            headerToken: request.gitToken?.trim() || undefined,
            serverToken: this.settings.serverToken,
            allowedHosts: this.settings.allowedHosts,
          }),
          refuseNonPublicRedirects: true,
        }
      : this.defaultRequest(location);
    const slot = load.credential.kind === 'header' ? 'credentialed' : 'shared';
    try {
      const library = await this.cache.load(slot, load, force);
      return { library, source: location.source };
    } catch (e) {
      throw explainCloneFailure(e, location, load.credential, !!override);
    }
  }

  /** The configured repository's load request, one object for the life of the process (its cache key is computed once). */
  private defaultRequest(location: RepoLocation): RepoLoadRequest {
    // the configured repository and the server token are fixed for the life of the process
    return (this.defaultLoad ??= {
      location,
      credential: selectCloneCredential({ serverToken: this.settings.serverToken, allowedHosts: this.settings.allowedHosts }),
      refuseNonPublicRedirects: false,
    });
  }

  /**
   * The source a request without overrides (no `repo`, `path`, `branch`,
   * token header or `?source=`) is served from right now, if it is loaded and
   * fresh; undefined otherwise. Never loads or clones. A refresh, a new clone
   * or a reload yields a new library object, and an expired copy yields
   * undefined, so the library's identity is a version that cannot go stale.
   */
  peekDefault(): ResolvedPromptSource | undefined {
    const location = this.settings.configuredRepo;
    if (!location) {
      const library = this.builtins.peek();
      return library && { library, source: BUILT_IN_SOURCE };
    }
    const library = this.cache.peek('shared', this.defaultRequest(location));
    if (library !== this.peeked?.library) this.peeked = library && { library, source: location.source };
    return this.peeked;
  }

  /** Prompt count of a cached copy of that source, or 0. */
  cachedCount(sourceIdentity: string): number {
    return this.cache.cachedCount(sourceIdentity) ?? 0;
  }
}
