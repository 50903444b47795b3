import type { CheckModel } from './check-model.js';
import type { CheckReadiness } from './check-readiness.js';
import type { ClusterReader, ClusterStatus } from '../domain/ports/cluster-reader.js';
import type { ClusterFleet, ClusterSummary } from './cluster/cluster-fleet.js';
import { currentCluster } from './cluster/current-cluster.js';
import type { Embedder } from '../domain/ports/embedder.js';
import type { LlmProvider } from '../domain/ports/llm-provider.js';
import type { SharedState } from '../domain/ports/shared-state.js';
import type { Tracer } from '../domain/ports/tracer.js';
import type { VectorStore } from '../domain/ports/vector-store.js';
import type { ToolHandler } from './tool-handler.js';

export const ORG_DATA_COLLECTIONS = ['patterns', 'policies', 'capabilities'] as const;

export interface RuntimeInfo {
  version: string;
  nodeVersion: string;
  platform: string;
  arch: string;
}

interface CollectionStatus {
  exists: boolean;
  documentsCount: number;
  error?: string;
}

/** The `version` tool: the service version and every dependency's health, each read from its port. */
export class GetSystemStatus implements ToolHandler {
  constructor(
    private readonly runtime: RuntimeInfo,
    private readonly vectorStore: VectorStore,
    private readonly embedder: Embedder,
    private readonly llm: LlmProvider,
    private readonly cluster: ClusterReader,
    private readonly tracer: Tracer,
    private readonly readiness: CheckReadiness,
    private readonly sharedState: SharedState,
    /** The model asked one small question (cached); without it the settings alone are reported. */
    private readonly checkModel?: CheckModel,
    /** The fleet (SVC_CLUSTERS): version reports every cluster (or the one a call names). */
    private readonly fleet?: Pick<ClusterFleet, 'summaries'>,
  ) {}

  async execute() {
    // readiness makes a real (cached, time-bounded) embedding call: "healthy" means it served.
    // Each probe is a child of the tool's span (the adapters' own probes are not traced by their decorators).
    const probe = <T>(dependency: string, fn: () => Promise<T>) =>
      this.tracer.inChildSpan(`probe ${dependency}`, { 'svc.probe.dependency': dependency }, () => fn(), 'internal');
    const settings = this.llm.status();
    const [vector, kubernetes, readiness, sharedState, model] = await Promise.all([
      probe('vectordb', () => this.vectorStatus()),
      probe('kubernetes', () => this.clusterStatus()),
      probe('embeddings', () => this.readiness.execute()),
      probe('shared-state', () => this.sharedState.status()),
      settings.configured && this.checkModel ? probe('llm', () => this.checkModel!.execute()) : Promise.resolve(undefined),
    ]);
    const info = this.embedder.info();
    const embeddingError = readiness.embeddingHealthy ? undefined : this.readiness.embeddingProblem();
    const embedding = { ...info, dimension: info.dimension ?? null, healthy: readiness.embeddingHealthy, ...(embeddingError ? { error: embeddingError } : {}) };
    const aiProvider = model ? { ...settings, ...model } : settings;
    const modelHealthy = settings.configured && (model?.healthy ?? true);
    const { clusters, ...kube } = kubernetes;
    const healthy = vector.connected && embedding.healthy && kube.connected && modelHealthy && (!sharedState.configured || sharedState.connected);
    return {
      status: healthy ? 'healthy' : 'degraded',
      system: {
        version: { ...this.runtime },
        vectorDB: vector,
        embedding,
        aiProvider,
        kubernetes: kube,
        tracing: this.tracer.status(),
        sharedState,
        ...(clusters ? { clusters } : {}),
      },
    };
  }

  /**
   * The cluster's status; with a fleet, every cluster's (or the one the call
   * is for), `connected` only when each is reachable: one unreachable cluster
   * degrades the answer, it does not fail it.
   */
  private async clusterStatus(): Promise<ClusterStatus & { clusters?: ClusterSummary[] }> {
    if (!this.fleet) return this.cluster.status();
    const current = currentCluster();
    const clusters = await this.fleet.summaries(current !== undefined ? [current] : undefined);
    const down = clusters.filter((c) => !c.reachable);
    const one = clusters.length === 1 ? clusters[0] : undefined;
    return {
      connected: down.length === 0,
      context: current ?? '',
      ...(one?.serverVersion ? { serverVersion: one.serverVersion } : {}),
      ...(down.length ? { error: `${down.length} of ${clusters.length} clusters unreachable: ${down.map((c) => c.name).join(', ')}` } : {}),
      clusters,
    };
  }

  private async vectorStatus() {
    const health = await this.vectorStore.health();
    const collections: Record<string, CollectionStatus> = {};
    await Promise.all(
      ORG_DATA_COLLECTIONS.map(async (name) => {
        collections[name] = health.connected ? await this.collectionStatus(name) : { exists: false, documentsCount: 0 };
      }),
    );
    return { ...health, collections };
  }

  private async collectionStatus(name: string): Promise<CollectionStatus> {
    try {
      const exists = await this.vectorStore.collectionExists(name);
      return { exists, documentsCount: exists ? await this.vectorStore.count(name) : 0 };
    } catch (err) {
      return { exists: false, documentsCount: 0, error: err instanceof Error ? err.message : String(err) };
    }
  }
}
