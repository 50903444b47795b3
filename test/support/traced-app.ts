import os from 'node:os';
import type { Express } from 'express';
import type { DependencyContainer } from 'tsyringe';
import type { ToolHandler } from '../../application/tool-handler.js';
import type { ClusterClient } from '../../domain/ports/cluster-client.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import { appParts, buildContainer, type Overrides } from '../../infrastructure/composition-root.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { createApp } from '../../interfaces/http/app.js';
import type { DependencyServer } from './dependency-server.js';
import { HttpBackedCluster, HttpBackedEmbedder, HttpBackedLlm, HttpBackedVectorStore } from './http-backed-ports.js';
import { CapturingLogger } from './capturing-logger.js';

/** Credentials the stand-ins really send; none may ever reach a span. */
export const CANARY = {
  authToken: 'canary-auth-token-5f1e2d3c4b5a',
  vectorKey: 'canaryvectorkey9a8b7c6d',
  aiKey: 'sk-canary-ai-key-0c1d2e3f',
  clusterToken: 'canary-cluster-token-77aa88bb',
  gitPassword: 'canary-git-password-3e4f',
};

export interface TracedApp {
  app: Express;
  container: DependencyContainer;
  tracer: Tracer;
  logger: CapturingLogger;
}

/**
 * `remediate` as a test use case that walks every traced port the way the AI
 * tools will: embed the issue, search patterns, ask the model, list and get
 * cluster objects (the get fails, is recorded on its span, and is tolerated).
 */
function investigate(container: () => DependencyContainer): ToolHandler {
  return {
    async execute(input) {
      const c = container();
      const issue = String(input.issue);
      const [vector] = await c.resolve<Embedder>(TOKENS.Embedder).embed([issue]);
      const hits = await (c.resolve<VectorStore>(TOKENS.VectorStore) as unknown as HttpBackedVectorStore).search('patterns', {
        vector: vector!,
        limit: 3,
      });
      const answer = await (c.resolve<LlmProvider>(TOKENS.LlmProvider) as unknown as HttpBackedLlm).chat([{ role: 'user', content: issue }]);
      const cluster = c.resolve(TOKENS.ClusterReader) as unknown as HttpBackedCluster;
      await cluster.list({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default' });
      const missing = await cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'default' }).catch(() => null);
      return { hits: hits.length, answer: answer.text, missing };
    },
  };
}

/** The real app, configured from `env` like production, with HTTP-backed stand-ins for the outbound ports. */
export function tracedApp(env: Record<string, string>, deps: DependencyServer, overrides: Overrides = {}): TracedApp {
  const config = loadConfig({ SVC_AUTH_TOKEN: CANARY.authToken, SVC_VERIFY_WINDOW_MS: '30', SVC_ROLLOUT_POLL_MS: '50', ...env }, os.tmpdir());
  const logger = new CapturingLogger();
  const container: DependencyContainer = buildContainer(config, {
    logger,
    vectorStore: new HttpBackedVectorStore(deps.url, CANARY.vectorKey) as unknown as VectorStore,
    embedder: new HttpBackedEmbedder(deps.url, CANARY.aiKey) as unknown as Embedder,
    llm: new HttpBackedLlm(deps.url, CANARY.aiKey) as unknown as LlmProvider,
    cluster: new HttpBackedCluster(deps.url, CANARY.clusterToken) as unknown as ClusterClient,
    toolHandlers: { remediate: investigate(() => container) },
    ...overrides,
  });
  return { app: createApp(appParts(container)), container, tracer: container.resolve<Tracer>(TOKENS.Tracer), logger };
}
