import { BuiltinPrompts } from '../../application/prompts/builtin-prompts.js';
import { ListPrompts } from '../../application/prompts/list-prompts.js';
import { PromptRepoCache } from '../../application/prompts/prompt-repo-cache.js';
import { PromptSourceResolver } from '../../application/prompts/prompt-source-resolver.js';
import { RefreshPrompts } from '../../application/prompts/refresh-prompts.js';
import { RenderPrompt } from '../../application/prompts/render-prompt.js';
import type { IngestedPromptSource } from '../../application/ingested-prompt-source.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { GitFetcher } from '../../domain/ports/git-fetcher.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { Config } from '../config/config.js';
import { DataDirCloneWorkspace } from '../git/data-dir-clone-workspace.js';
import { IsomorphicGitFetcher } from '../git/isomorphic-git-fetcher.js';
import { FsPromptTreeReader } from './fs-prompt-tree-reader.js';

/** docs/design/prompts.md: clones time out after 120 s (502). */
export const CLONE_TIMEOUT_MS = 120_000;
const MAX_CONCURRENT_CLONES = 4;

/** What the prompt library module is built from. */
export interface PromptsDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  tracer: Tracer;
  /** Uploaded skill sources: the resolver serves `?source=` from them. */
  ingested: IngestedPromptSource;
  /** The git transport (default: isomorphic-git). */
  gitFetcher?: GitFetcher;
}

/** What the prompt library module gives the rest of the composition. */
export interface PromptsExports {
  resolver: PromptSourceResolver;
  listPrompts: ListPrompts;
  renderPrompt: RenderPrompt;
  refreshPrompts: RefreshPrompts;
}

/** The prompt library's use cases (list, render, refresh) and the source resolver. Takes every input as an argument and touches no container. */
export function registerPrompts(deps: PromptsDeps): PromptsExports {
  const { config, logger } = deps;
  const reader = new FsPromptTreeReader();
  const settings = {
    configuredRepo: config.prompts.configuredRepo,
    serverToken: config.prompts.gitToken,
    allowedHosts: config.prompts.allowedRepoHosts,
    builtinDir: config.prompts.builtinDir,
    cacheTtlMs: config.prompts.cacheTtlSeconds * 1000,
    cloneTimeoutMs: CLONE_TIMEOUT_MS,
    maxConcurrentClones: MAX_CONCURRENT_CLONES,
  };
  const cache = new PromptRepoCache(
    {
      fetcher: deps.gitFetcher ?? new IsomorphicGitFetcher({ internalHosts: config.prompts.repoInternalHosts }),
      workspace: new DataDirCloneWorkspace(config.server.dataDir, logger),
      reader,
      clock: deps.clock,
      logger,
      tracer: deps.tracer,
    },
    { ttlMs: settings.cacheTtlMs, cloneTimeoutMs: settings.cloneTimeoutMs, maxConcurrentClones: settings.maxConcurrentClones },
  );
  const resolver = new PromptSourceResolver(settings, cache, new BuiltinPrompts(settings.builtinDir, reader, logger), deps.ingested);
  return {
    resolver,
    listPrompts: new ListPrompts(resolver),
    renderPrompt: new RenderPrompt(resolver),
    refreshPrompts: new RefreshPrompts(resolver, logger),
  };
}
