import { NotConfiguredError } from '../../domain/errors.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';

/** What a tool must have set before it runs a step: the model, the cluster, or both. */
export interface Needs {
  llm?: LlmProvider;
  /** The cluster the tool reads; `context()` is empty when none is configured. */
  cluster?: { context(): string };
}

export const AI_PROVIDER = 'The AI provider';
export const KUBERNETES_CLUSTER = 'The Kubernetes cluster';
export const CLUSTER_HINT = 'set KUBECONFIG or run svc inside a cluster';

/**
 * Throws one NotConfiguredError (500 EXECUTION_ERROR) naming every setting
 * the step needs and lacks, so a caller with neither a model nor a cluster
 * learns both at once instead of one per attempt. The model's hint comes
 * from its provider (it knows which variables it reads).
 */
export function requireConfigured(needs: Needs): void {
  const missing: { what: string; how: string }[] = [];
  if (needs.llm) {
    const status = needs.llm.status();
    if (!status.configured) missing.push({ what: AI_PROVIDER, how: status.hint ?? 'set OPENAI_API_KEY' });
  }
  if (needs.cluster && needs.cluster.context() === '') missing.push({ what: KUBERNETES_CLUSTER, how: CLUSTER_HINT });
  if (missing.length > 0) throw NotConfiguredError.all(missing);
}
