import type { KubeIdentity } from '../auth/kube-identity.js';
import type { ClusterReader } from './cluster-reader.js';
import type { ClusterWriter } from './cluster-writer.js';

export type { ClusterStatus } from './cluster-reader.js';

/**
 * What one Kubernetes adapter implements: both ports. Use cases never take
 * this whole; they are given the reader, the writer, or both separately
 * (the composition root registers the same adapter under each port).
 */
export interface ClusterClient extends ClusterReader, ClusterWriter {}

/**
 * Clients that act as someone else in the cluster (`SVC_KUBE_IMPERSONATE`):
 * the composition root hands it to the caller-aware cluster view, which picks
 * the client of the caller a request is made for. Use cases never see it.
 */
export interface ImpersonatingClusterClients {
  /**
   * A client whose every request carries `Impersonate-User: identity.user`
   * and one `Impersonate-Group` per group (the identity is already checked
   * by kubeIdentityOf). Same contract as ClusterClient, except that a 403 from
   * the API server, dry runs included, is ForbiddenError naming the verb,
   * resource and namespace the cluster refused (clusterForbidden), never
   * DependencyError or a dry-run verdict. Clients may be kept per identity;
   * that cache is bounded.
   */
  actingAs(identity: KubeIdentity): ClusterClient;
}
