import { actingAsService } from './acting-caller.js';
import { withinCluster } from './current-cluster.js';
import { chooseCluster, leastRoleBeforeCluster, type ClusterProfile } from '../../domain/fleet/cluster-profile.js';
import type { Role } from '../../domain/auth/caller.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import { ValidationError } from '../../domain/errors.js';
import { isSessionId } from '../../domain/sessions/session-id.js';

/** A rollout's id (operate with clusterSelector): `rol_` and 32 hex digits. */
export const isRolloutId = (id: unknown): id is string => isSessionId(id, 'rollout');

/** One cluster as `GET /api/v1/clusters` and the `version` tool show it. */
export interface ClusterSummary {
  name: string;
  labels: Record<string, string>;
  readOnly: boolean;
  reachable: boolean;
  serverVersion?: string;
  /** Why it is not reachable (no credential in it). */
  error?: string;
}

/**
 * The tools whose every call is for one cluster when svc serves several
 * (version reports them all; manageOrgData's patterns and policies are
 * shared, while capabilities, their scan and its progress are each cluster's).
 */
function needsCluster(tool: string, params: Readonly<Record<string, unknown>>): boolean {
  if (tool === 'version') return false;
  // a rollout across clusters (operate with clusterSelector, then its rol_ id) is for several
  if (tool === 'operate' && (params.clusterSelector !== undefined || isRolloutId(params.sessionId))) return false;
  // a fleet investigation (remediate with clusterSelector) runs in each matching cluster
  if (tool === 'remediate' && params.clusterSelector !== undefined) return false;
  if (tool === 'manageOrgData') return params.operation === 'scan' || params.dataType === 'capabilities';
  return true;
}

/**
 * The clusters svc serves (SVC_CLUSTERS) with their profiles: which cluster
 * a call is for, chosen before any I/O, and each cluster's status. Built by
 * the composition root only when SVC_CLUSTERS is set; without it svc serves
 * its one cluster as it always has and no call carries a cluster scope.
 */
export class ClusterFleet {
  private readonly byName: ReadonlyMap<string, ClusterProfile>;

  constructor(
    readonly profiles: readonly ClusterProfile[],
    /** The fleet's routing reader: each call goes to the current cluster's client. */
    private readonly reader: ClusterReader,
  ) {
    this.byName = new Map(profiles.map((p) => [p.name, p]));
  }

  names(): string[] {
    return this.profiles.map((p) => p.name);
  }

  profile(name: string): ClusterProfile | undefined {
    return this.byName.get(name);
  }

  /**
   * The profile of the cluster this call is for, or undefined for a call
   * that is for no one cluster (version without `cluster`, manageOrgData
   * on patterns and policies). A missing `cluster` while several are served, or one
   * svc does not serve, is a ValidationError naming the choices.
   */
  choose(tool: string, params: Readonly<Record<string, unknown>>): ClusterProfile | undefined {
    if (params.clusterSelector !== undefined && params.cluster !== undefined)
      throw new ValidationError('Send either cluster or clusterSelector, not both', [{ field: 'clusterSelector', message: 'not with cluster' }]);
    // a rollout spans its clusters and runs each in its own scope: one cluster's scope around it would stamp the rollout as that cluster's
    if (params.cluster !== undefined && tool === 'operate' && isRolloutId(params.sessionId))
      throw new ValidationError(`${params.sessionId} is a rollout across clusters: send its sessionId without cluster`, [
        { field: 'cluster', message: 'not with a rollout' },
      ]);
    if (params.cluster === undefined && !needsCluster(tool, params)) return undefined;
    const name = chooseCluster(this.names(), params.cluster, tool);
    return name === undefined ? undefined : this.byName.get(name);
  }

  /** The role a caller needs for `tool` before its cluster is known: a cluster's own role mapping may grant more there than svc's. */
  leastRole(tool: string): Role {
    return leastRoleBeforeCluster(this.profiles, tool);
  }

  /** Each cluster's status, probed at once (svc's own identity); an unreachable cluster is `reachable: false`, never a failure. */
  async summaries(names: readonly string[] = this.names()): Promise<ClusterSummary[]> {
    return Promise.all(
      names.map(async (name) => {
        const profile = this.byName.get(name)!;
        const status = await actingAsService(() => withinCluster(name, () => this.reader.status()));
        return {
          name,
          labels: { ...profile.labels },
          readOnly: profile.readOnly,
          reachable: status.connected,
          ...(status.serverVersion ? { serverVersion: status.serverVersion } : {}),
          ...(status.error ? { error: status.error } : {}),
        };
      }),
    );
  }
}
