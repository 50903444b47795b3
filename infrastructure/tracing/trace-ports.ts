import type { ClusterClient } from '../../domain/ports/cluster-client.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import { UnconfiguredClusterClient } from '../not-configured/unconfigured-cluster-client.js';
import { UnconfiguredLlmProvider } from '../not-configured/unconfigured-llm-provider.js';
import { NoopTracer } from './noop-tracer.js';
import { tracedClusterClient } from './traced-cluster-client.js';
import { tracedEmbedder } from './traced-embedder.js';
import { tracedLlmProvider } from './traced-llm-provider.js';
import { tracedVectorStore } from './traced-vector-store.js';

export interface TraceablePorts {
  vectorStore: VectorStore;
  embedder: Embedder;
  llm: LlmProvider;
  cluster: ClusterClient;
}

/**
 * The composition root's one call: the outbound ports wrapped in their span
 * decorators, or returned as they are when tracing is off (nothing to pay).
 * An AI provider or cluster that is not configured makes no call worth a
 * span (it answers "not configured" at once), so it is left unwrapped too.
 * `actingAs` (SVC_KUBE_IMPERSONATE): who each cluster call acts as, on its span.
 */
export function tracePorts(ports: TraceablePorts, tracer: Tracer, vectorSystem?: string, actingAs?: () => string): TraceablePorts {
  if (tracer instanceof NoopTracer) return ports;
  const { vectorStore, embedder, llm, cluster } = ports;
  return {
    vectorStore: tracedVectorStore(vectorStore, tracer, vectorSystem),
    embedder: tracedEmbedder(embedder, tracer),
    llm: llm instanceof UnconfiguredLlmProvider ? llm : tracedLlmProvider(llm, tracer),
    cluster: cluster instanceof UnconfiguredClusterClient ? cluster : tracedClusterClient(cluster, tracer, actingAs),
  };
}
