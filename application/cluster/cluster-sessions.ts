import { ValidationError } from '../../domain/errors.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Session } from '../../domain/sessions/session.js';
import { currentCluster } from './current-cluster.js';

/** The state key a session's cluster is kept under. */
export const SESSION_CLUSTER = 'cluster';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The cluster a stored session belongs to, when it was made in a fleet. */
export function sessionCluster(session: Session<unknown>): string | undefined {
  const state = session.state;
  return isObject(state) && typeof state[SESSION_CLUSTER] === 'string' ? state[SESSION_CLUSTER] : undefined;
}

/**
 * Sessions that belong to the cluster they were made in (SVC_CLUSTERS): a
 * session made inside a cluster's scope keeps that cluster in its state, and
 * a call for another cluster cannot read, execute or stop it (400 naming the
 * session's cluster, before the session is used). Outside any cluster's
 * scope (GET /api/v1/sessions) sessions are read as they are.
 */
export function clusterBoundSessions(store: SessionStore): SessionStore {
  const stamp = <S>(state: S): S => {
    const cluster = currentCluster();
    return cluster !== undefined && isObject(state) ? ({ ...state, [SESSION_CLUSTER]: cluster } as S) : state;
  };
  const checked = <S>(session: Session<S> | undefined): Session<S> | undefined => {
    const cluster = currentCluster();
    if (!session || cluster === undefined) return session;
    const own = sessionCluster(session);
    if (own !== undefined && own !== cluster)
      throw new ValidationError(`session ${session.id} belongs to cluster ${own}; this call is for cluster ${cluster}: continue it with cluster ${own}`, [
        { field: 'cluster', message: `must be ${own}, the session's cluster` },
      ]);
    return session;
  };
  return {
    create: (kind, state) => store.create(kind, stamp(state)),
    get: async (kind, id) => checked(await store.get(kind, id)),
    update: (kind, id, revision, state) => store.update(kind, id, revision, stamp(state)),
    list: (query) => store.list(query),
  };
}
