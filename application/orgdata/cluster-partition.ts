import { currentCluster } from '../cluster/current-cluster.js';
import { ExecutionError } from '../../domain/errors.js';
import type { PayloadFilter } from '../../domain/ports/vector-store.js';

/** The payload field that says which cluster a stored capability was learnt from. */
export const CLUSTER_FIELD = 'cluster';

/**
 * The cluster a per-cluster collection's work is for when svc serves several
 * (SVC_CLUSTERS): the call's cluster, or the scan's. Work for no cluster
 * fails loudly rather than reading or writing every cluster's documents.
 */
export function partitionCluster(): string {
  const cluster = currentCluster();
  if (cluster === undefined)
    throw new ExecutionError('no cluster chosen for this work: the capabilities are kept per cluster and none is read or written for all');
  return cluster;
}

/** The filter that keeps one cluster's documents; undefined (no filter) for svc's one cluster. */
export function clusterFilter(cluster: string | undefined): PayloadFilter | undefined {
  return cluster === undefined ? undefined : { must: [{ key: CLUSTER_FIELD, equals: cluster }] };
}
