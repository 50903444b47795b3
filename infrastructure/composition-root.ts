import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { ExecuteTool } from '../application/execute-tool.js';
import { GetSystemStatus, type RuntimeInfo } from '../application/get-system-status.js';
import { ListTools } from '../application/list-tools.js';
import type { ToolHandler } from '../application/tool-handler.js';
import type { ClusterClient } from '../domain/ports/cluster-client.js';
import type { Clock } from '../domain/ports/clock.js';
import type { Embedder } from '../domain/ports/embedder.js';
import type { GitFetcher } from '../domain/ports/git-fetcher.js';
import type { LlmProvider } from '../domain/ports/llm-provider.js';
import type { Logger } from '../domain/ports/logger.js';
import type { Tracer } from '../domain/ports/tracer.js';
import type { VectorStore } from '../domain/ports/vector-store.js';
import { TOOL_DEFINITIONS } from '../domain/tools/tool-definitions.js';
import type { ToolDefinition } from '../domain/tools/tool-definition.js';
import { ToolRegistry } from '../domain/tools/tool-registry.js';
import type { Config } from './config/config.js';
import { createClusterClient } from './kubernetes/create-cluster-client.js';
import { createLlmProvider } from './llm/create-llm-provider.js';
import { PinoLogger } from './logging/pino-logger.js';
import { registerPrompts } from './prompts/register-prompts.js';
import { NoopTracer } from './not-configured/noop-tracer.js';
import { UnconfiguredEmbedder } from './not-configured/unconfigured-embedder.js';
import { UnconfiguredVectorStore } from './not-configured/unconfigured-vector-store.js';
import { TOKENS } from './tokens.js';
import { SERVICE_VERSION } from './service-version.js';

/** Adapters a caller (a test, a bench) may put in place of the configured ones. */
export interface Overrides {
  logger?: Logger;
  clock?: Clock;
  tracer?: Tracer;
  vectorStore?: VectorStore;
  embedder?: Embedder;
  llm?: LlmProvider;
  cluster?: ClusterClient;
  toolDefinitions?: readonly ToolDefinition[];
  /** Extra or replacement tool use cases, by tool name. */
  toolHandlers?: Record<string, ToolHandler>;
  /** The git transport of the prompt library. */
  gitFetcher?: GitFetcher;
}

const systemClock: Clock = { now: () => Date.now() };

/**
 * The composition root: one child container per app, built from a validated
 * config. Every adapter is chosen here and nowhere else.
 */
export function buildContainer(config: Config, overrides: Overrides = {}): DependencyContainer {
  const c = rootContainer.createChildContainer();
  const value = <T>(token: symbol, v: T) => c.register<T>(token, { useValue: v });

  value(TOKENS.Config, config);
  value(TOKENS.Logger, overrides.logger ?? PinoLogger.create(config.server.logLevel));
  value(TOKENS.Clock, overrides.clock ?? systemClock);
  value(TOKENS.Tracer, overrides.tracer ?? new NoopTracer());
  value(TOKENS.VectorStore, overrides.vectorStore ?? new UnconfiguredVectorStore());
  value(TOKENS.Embedder, overrides.embedder ?? new UnconfiguredEmbedder());
  value(TOKENS.LlmProvider, overrides.llm ?? createLlmProvider(config.llm));
  value(TOKENS.ClusterClient, overrides.cluster ?? createClusterClient(config.cluster));
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
      ),
    ],
    ...Object.entries(overrides.toolHandlers ?? {}),
  ]);
  value(TOKENS.ToolHandlers, handlers);
  value(TOKENS.ListTools, new ListTools(registry));
  registerPrompts(c, config, overrides);
  value(
    TOKENS.ExecuteTool,
    new ExecuteTool(registry, handlers, c.resolve(TOKENS.Tracer), c.resolve(TOKENS.Clock), c.resolve(TOKENS.Logger)),
  );
  return c;
}
