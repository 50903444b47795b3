import type { DependencyContainer } from 'tsyringe';
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
import { TOKENS } from '../tokens.js';
import { FsPromptTreeReader } from './fs-prompt-tree-reader.js';

/** docs/design/prompts.md: clones time out after 120 s (502). */
export const CLONE_TIMEOUT_MS = 120_000;
const MAX_CONCURRENT_CLONES = 4;

/** Registers the prompt library's use cases (list, render, refresh) and the source resolver. */
export function registerPrompts(c: DependencyContainer, config: Config, overrides: { gitFetcher?: GitFetcher }): void {
  const logger = c.resolve<Logger>(TOKENS.Logger);
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
      fetcher: overrides.gitFetcher ?? new IsomorphicGitFetcher({ internalHosts: config.prompts.repoInternalHosts }),
      workspace: new DataDirCloneWorkspace(config.server.dataDir, logger),
      reader,
      clock: c.resolve<Clock>(TOKENS.Clock),
      logger,
      tracer: c.resolve<Tracer>(TOKENS.Tracer),
    },
    { ttlMs: settings.cacheTtlMs, cloneTimeoutMs: settings.cloneTimeoutMs, maxConcurrentClones: settings.maxConcurrentClones },
  );
  const resolver = new PromptSourceResolver(
    settings,
    cache,
    new BuiltinPrompts(settings.builtinDir, reader, logger),
    c.resolve<IngestedPromptSource>(TOKENS.IngestedPromptSource),
  );
  c.register(TOKENS.PromptSourceResolver, { useValue: resolver });
  c.register(TOKENS.ListPrompts, { useValue: new ListPrompts(resolver) });
  c.register(TOKENS.RenderPrompt, { useValue: new RenderPrompt(resolver) });
  c.register(TOKENS.RefreshPrompts, { useValue: new RefreshPrompts(resolver, logger) });
}
