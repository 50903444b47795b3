import type { ClusterClient } from '../../domain/ports/cluster-client.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
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
 */
export function tracePorts(ports: TraceablePorts, tracer: Tracer, vectorSystem?: string): TraceablePorts {
  if (tracer instanceof NoopTracer) return ports;
  return {
    vectorStore: tracedVectorStore(ports.vectorStore, tracer, vectorSystem),
    embedder: tracedEmbedder(ports.embedder, tracer),
    llm: tracedLlmProvider(ports.llm, tracer),
    cluster: tracedClusterClient(ports.cluster, tracer),
  };
}
