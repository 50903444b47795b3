import { BuiltinPrompts } from '../../application/prompts/builtin-prompts.js';
import { ListPrompts } from '../../application/prompts/list-prompts.js';
import { PromptRepoCache } from '../../application/prompts/prompt-repo-cache.js';
import { PromptSourceResolver } from '../../application/prompts/prompt-source-resolver.js';
import type { PromptSourceSettings } from '../../application/prompts/prompt-source-settings.js';
import { RefreshPrompts } from '../../application/prompts/refresh-prompts.js';
import { RenderPrompt } from '../../application/prompts/render-prompt.js';
import { validateRepoOverride } from '../../domain/prompts/repo-override.js';
import { CapturingLogger } from './capturing-logger.js';
import { FakeClock } from './fake-clock.js';
import { FakeDisk, FakeGitFetcher, FakeTreeReader, FakeWorkspace } from './fake-prompt-git.js';
import { promptFiles, promptMarkdown } from './prompt-files.js';
import { RecordingTracer } from './recording-tracer.js';

export const TTL_MS = 60_000;

/** A prompt file set with one prompt per name. */
export function filesWith(...names: string[]) {
  return promptFiles(Object.fromEntries(names.map((n) => [`${n}.md`, promptMarkdown(`description: ${n} prompt`, `body of ${n}`)])));
}

/** The prompt use cases wired to in-memory fakes. `configuredRepo` is a URL (validated like config does). */
export function promptsHarness(options: { configuredRepo?: string; configuredPath?: string; serverToken?: string; allowedHosts?: string[] } = {}) {
  const disk = new FakeDisk();
  const fetcher = new FakeGitFetcher(disk);
  const workspace = new FakeWorkspace(disk);
  const reader = new FakeTreeReader(disk);
  const clock = new FakeClock();
  const logger = new CapturingLogger();
  const tracer = new RecordingTracer();
  disk.dirs.set('/builtin', filesWith('builtin-one', 'builtin-two'));
  const configured = options.configuredRepo ? { ...validateRepoOverride({ repo: options.configuredRepo, path: options.configuredPath })! } : undefined;
  const settings: PromptSourceSettings = {
    configuredRepo: configured,
    serverToken: options.serverToken,
    allowedHosts: options.allowedHosts ?? ['github.com', 'www.github.com'],
    builtinDir: '/builtin',
    cacheTtlMs: TTL_MS,
    cloneTimeoutMs: 120_000,
    maxConcurrentClones: 4,
  };
  const cache = new PromptRepoCache({ fetcher, workspace, reader, clock, logger, tracer }, { ttlMs: TTL_MS, cloneTimeoutMs: 120_000, maxConcurrentClones: 4 });
  const resolver = new PromptSourceResolver(settings, cache, new BuiltinPrompts('/builtin', reader, logger));
  return {
    settings,
    disk,
    fetcher,
    workspace,
    clock,
    logger,
    tracer,
    cache,
    resolver,
    list: new ListPrompts(resolver),
    render: new RenderPrompt(resolver),
    refresh: new RefreshPrompts(resolver, logger),
    /** Serves `files` on `branch` of `url`. */
    serve(url: string, files = filesWith('p'), branch = 'main', requiresToken?: string) {
      const existing = fetcher.remotes.get(url) ?? {};
      fetcher.remotes.set(url, { ...existing, requiresToken, branches: { ...(existing.branches ?? {}), [branch]: files } });
    },
  };
}
