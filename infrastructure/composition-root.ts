import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { CheckReadiness } from '../application/check-readiness.js';
import { ExecuteTool } from '../application/execute-tool.js';
import { GetSystemStatus, type RuntimeInfo } from '../application/get-system-status.js';
import { IngestSource } from '../application/ingest-source.js';
import { IngestedPromptSource } from '../application/ingested-prompt-source.js';
import { ListTools } from '../application/list-tools.js';
import type { ToolHandler } from '../application/tool-handler.js';
import type { ClusterClient } from '../domain/ports/cluster-client.js';
import type { Clock, Timers } from '../domain/ports/clock.js';
import type { Embedder } from '../domain/ports/embedder.js';
import type { IngestedSourceStore } from '../domain/ports/ingested-source-store.js';
import type { GitFetcher } from '../domain/ports/git-fetcher.js';
import type { LlmProvider } from '../domain/ports/llm-provider.js';
import type { Logger } from '../domain/ports/logger.js';
import type { Tracer } from '../domain/ports/tracer.js';
import type { VectorStore } from '../domain/ports/vector-store.js';
import { TOOL_DEFINITIONS } from '../domain/tools/tool-definitions.js';
import type { ToolDefinition } from '../domain/tools/tool-definition.js';
import { ToolRegistry } from '../domain/tools/tool-registry.js';
import type { Config } from './config/config.js';
import { SystemClock } from './clock/system-clock.js';
import { createClusterClient } from './kubernetes/create-cluster-client.js';
import { createLlmProvider } from './llm/create-llm-provider.js';
import { PinoLogger } from './logging/pino-logger.js';
import { registerPrompts } from './prompts/register-prompts.js';
import { NoopTracer } from './not-configured/noop-tracer.js';
import { InMemoryIngestedSourceStore } from './uploads/in-memory-ingested-source-store.js';
import { TOKENS } from './tokens.js';
import { SERVICE_VERSION } from './service-version.js';
import { createEmbedder, createVectorStore } from './vector/vector-adapters.js';

/** Adapters a caller (a test, a bench) may put in place of the configured ones. */
export interface Overrides {
  logger?: Logger;
  clock?: Clock & Timers;
  tracer?: Tracer;
  vectorStore?: VectorStore;
  embedder?: Embedder;
  llm?: LlmProvider;
  cluster?: ClusterClient;
  toolDefinitions?: readonly ToolDefinition[];
  /** Extra or replacement tool use cases, by tool name. */
  toolHandlers?: Record<string, ToolHandler>;
  ingestedSources?: IngestedSourceStore;
  /** The git transport of the prompt library. */
  gitFetcher?: GitFetcher;
}

/**
 * The composition root: one child container per app, built from a validated
 * config. Every adapter is chosen here and nowhere else.
 */
export function buildContainer(config: Config, overrides: Overrides = {}): DependencyContainer {
  const c = rootContainer.createChildContainer();
  const value = <T>(token: symbol, v: T) => c.register<T>(token, { useValue: v });

  value(TOKENS.Config, config);
  value(TOKENS.Logger, overrides.logger ?? PinoLogger.create(config.server.logLevel));
  value(TOKENS.Clock, overrides.clock ?? new SystemClock());
  value(TOKENS.Tracer, overrides.tracer ?? new NoopTracer());
  value(TOKENS.VectorStore, overrides.vectorStore ?? createVectorStore(config.vector, c.resolve(TOKENS.Logger)));
  value(TOKENS.Embedder, overrides.embedder ?? createEmbedder(config.vector));
  value(TOKENS.LlmProvider, overrides.llm ?? createLlmProvider(config.llm));
  value(TOKENS.ClusterClient, overrides.cluster ?? createClusterClient(config.cluster));
  value(
    TOKENS.CheckReadiness,
    new CheckReadiness(c.resolve(TOKENS.VectorStore), c.resolve(TOKENS.Embedder), c.resolve(TOKENS.Clock), c.resolve(TOKENS.Logger)),
  );
  value<RuntimeInfo>(TOKENS.RuntimeInfo, {
    version: SERVICE_VERSION,
    nodeVersion: process.version,
    platform: process.platform,
    arch: process.arch,
  });
  const registry = new ToolRegistry(overrides.toolDefinitions ?? TOOL_DEFINITIONS);
  value(TOKENS.ToolRegistry, registry);

  const handlers = new Map<string, ToolHandler>([
    [
      'version',
      new GetSystemStatus(
        c.resolve(TOKENS.RuntimeInfo),
        c.resolve(TOKENS.VectorStore),
        c.resolve(TOKENS.Embedder),
        c.resolve(TOKENS.LlmProvider),
        c.resolve(TOKENS.ClusterClient),
        c.resolve(TOKENS.Tracer),
        c.resolve(TOKENS.CheckReadiness),
      ),
    ],
    ...Object.entries(overrides.toolHandlers ?? {}),
  ]);
  value(TOKENS.ToolHandlers, handlers);
  value(TOKENS.ListTools, new ListTools(registry));
  // Uploaded skill sources first: the prompt source resolver serves `?source=` from them.
  const sources = overrides.ingestedSources ?? new InMemoryIngestedSourceStore(config.uploads);
  value<IngestedSourceStore>(TOKENS.IngestedSourceStore, sources);
  value(TOKENS.IngestSource, new IngestSource(sources));
  value(TOKENS.IngestedPromptSource, new IngestedPromptSource(sources, c.resolve(TOKENS.Logger)));
  registerPrompts(c, config, overrides);
  value(
    TOKENS.ExecuteTool,
    new ExecuteTool(registry, handlers, c.resolve(TOKENS.Tracer), c.resolve(TOKENS.Clock), c.resolve(TOKENS.Logger)),
  );
  return c;
}
