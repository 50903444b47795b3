import type { Caller } from '../../domain/auth/caller.js';
import { requireRole } from '../../domain/auth/tool-access.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import { actingAsService } from './acting-caller.js';
import type { ClusterFleet, ClusterSummary } from './cluster-fleet.js';

export interface ClusterList {
  /** Every cluster svc serves, in the order of SVC_CLUSTERS; without SVC_CLUSTERS its one cluster (none when no cluster is configured). */
  clusters: ClusterSummary[];
}

/**
 * `GET /api/v1/clusters` (viewer): each cluster's name, labels, whether it is
 * read-only, whether svc reaches it now and its server version. An
 * unreachable cluster is listed `reachable: false` with why; it does not fail
 * the answer.
 */
export class ListClusters {
  constructor(
    private readonly fleet: ClusterFleet | undefined,
    private readonly reader: ClusterReader,
  ) {}

  async execute(caller: Caller): Promise<ClusterList> {
    requireRole(caller, 'viewer', 'GET /api/v1/clusters');
    if (this.fleet) return { clusters: await this.fleet.summaries() };
    const status = await actingAsService(() => this.reader.status());
    if (!status.context && !status.connected) return { clusters: [] };
    return {
      clusters: [
        {
          name: status.context,
          labels: {},
          readOnly: false,
          reachable: status.connected,
          ...(status.serverVersion ? { serverVersion: status.serverVersion } : {}),
          ...(status.error ? { error: status.error } : {}),
        },
      ],
    };
  }
}
