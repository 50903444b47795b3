import type { ClusterClient, ClusterStatus } from '../../domain/ports/cluster-client.js';

/** The cluster client when no kubeconfig and no in-cluster service account are found. */
export class UnconfiguredClusterClient implements ClusterClient {
  async status(): Promise<ClusterStatus> {
    return { connected: false, context: '', error: 'no cluster configured: set KUBECONFIG or run svc inside a cluster' };
  }
}
