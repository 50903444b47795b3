import type { ClusterClient } from '../../domain/ports/cluster-client.js';
import { CLUSTER_READER_METHODS, type ClusterStatus } from '../../domain/ports/cluster-reader.js';
import { CLUSTER_WRITER_METHODS } from '../../domain/ports/cluster-writer.js';
import type { ClusterProfile } from '../../domain/fleet/cluster-profile.js';
import { ExecutionError, ForbiddenError } from '../../domain/errors.js';
import { currentCluster } from './current-cluster.js';

/** The writer methods that persist something: what a read-only cluster never receives. */
const WRITES = new Set<string>(['apply', 'create', 'patch', 'delete']);

/** One cluster of the fleet as the composition root hands it over: its profile and its client (built lazily by the adapter). */
export interface FleetMember {
  readonly profile: ClusterProfile;
  readonly client: ClusterClient;
}

/**
 * The cluster port over a fleet: each call goes to the client of the cluster
 * the current work is for (withinCluster). Work outside any cluster's scope
 * goes to the only cluster when there is one, and fails loudly when there
 * are several: it never falls back to a default cluster. A read-only
 * cluster's client never receives a persisting write (apply, create, patch,
 * delete): ForbiddenError before any request, whatever asked for it (dry runs
 * and reads still go through).
 */
export function fleetCluster(members: readonly FleetMember[]): ClusterClient {
  const byName = new Map(members.map((m) => [m.profile.name, m]));
  const member = (): FleetMember => {
    const name = currentCluster();
    if (name === undefined) {
      if (members.length === 1) return members[0];
      throw new ExecutionError(
        `no cluster chosen for this work: svc serves ${members.length} clusters (${[...byName.keys()].join(', ')}) and never picks one by default`,
      );
    }
    const found = byName.get(name);
    if (!found) throw new ExecutionError(`cluster ${name} is not one svc serves (${[...byName.keys()].join(', ')})`);
    return found;
  };
  const view: Partial<Record<string, unknown>> = {
    context: () => {
      const name = currentCluster();
      if (name !== undefined) return byName.get(name)?.client.context() ?? name;
      return members.length === 1 ? members[0].client.context() : '';
    },
    // never throws, as the port says
    status: async (): Promise<ClusterStatus> => {
      try {
        return await member().client.status();
      } catch (e) {
        return { connected: false, context: currentCluster() ?? '', error: (e as Error).message };
      }
    },
  };
  for (const name of [...CLUSTER_READER_METHODS, ...CLUSTER_WRITER_METHODS]) {
    if (name === 'context' || name === 'status') continue;
    view[name] = async (...args: unknown[]) => {
      const { profile, client } = member();
      if (profile.readOnly && WRITES.has(name))
        throw new ForbiddenError(`cluster ${profile.name} is read-only: svc sends it no write`, { cluster: profile.name, readOnly: true });
      return (client[name] as (...a: unknown[]) => unknown)(...args);
    };
  }
  return view as unknown as ClusterClient;
}
