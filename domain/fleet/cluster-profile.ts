import type { Caller, Role } from '../auth/caller.js';
import { rolesFor, type RoleMapping } from '../auth/role-mapping.js';
import { leastRoleForTool } from '../auth/tool-access.js';
import { ForbiddenError, ValidationError } from '../errors.js';
import type { KindName } from '../write-guard/kind-names.js';
import type { PodSecurityLevel } from '../write-guard/pod-security-levels.js';

/**
 * One cluster of svc's fleet (SVC_CLUSTERS, SVC_CLUSTERS_FILE): a kubeconfig
 * context (or `in-cluster`), its labels and its own rules. Every field but
 * `name` is optional in the file; a profile as the configuration builds it
 * has them all resolved (the global settings filling what the file leaves).
 */
export interface ClusterProfile {
  /** The kubeconfig context name, or `in-cluster`: what a call's `cluster` names. */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** No write reaches this cluster: execution is refused (403) before any request, dry runs (previews) still run. */
  readonly readOnly: boolean;
  /** Namespaces svc never writes in this cluster, on top of the system ones and svc's own. */
  readonly protectedNamespaces: readonly string[];
  /** The kinds svc may write here; undefined keeps SVC_WRITE_KINDS. */
  readonly writeKinds?: readonly KindName[];
  /** Whether remediate's automatic mode may write here (default true). */
  readonly automaticWrites: boolean;
  /** The Pod Security level where a namespace enforces none; undefined keeps SVC_POD_SECURITY_LEVEL. */
  readonly podSecurityLevel?: PodSecurityLevel;
  /** Roles in this cluster (SVC_ROLES syntax); undefined keeps each caller's own roles. */
  readonly roles?: RoleMapping;
  /** Whether requests made for a caller impersonate them here; undefined keeps SVC_KUBE_IMPERSONATE. */
  readonly impersonate?: boolean;
}

/** Most clusters one svc serves: each is a lazily built client with its own caches. */
export const MAX_CLUSTERS = 64;

/** A cluster (context) name as a call may give it: kubeconfig context names (`gke_p_z_c`, `arn:aws:eks:...:cluster/x`, `kind-dev`). */
export const CLUSTER_NAME = /^[A-Za-z0-9]([A-Za-z0-9._@:/+-]{0,251}[A-Za-z0-9])?$/;

/** A label key or value as a cluster file or a clusterSelector gives it (Kubernetes label syntax, prefix allowed on keys). */
export const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
export const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** Whether a cluster's labels carry every key=value of `selector` (an empty selector matches every cluster). */
export function matchesSelector(labels: Readonly<Record<string, string>>, selector: Readonly<Record<string, string>>): boolean {
  return Object.entries(selector).every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v);
}

/** The clusters whose labels match `selector` (fleet investigation and rollouts); none is a ValidationError naming the clusters. */
export function selectClusters(profiles: readonly ClusterProfile[], selector: Readonly<Record<string, string>>): ClusterProfile[] {
  const matching = profiles.filter((p) => matchesSelector(p.labels, selector));
  if (matching.length === 0)
    throw new ValidationError(`no cluster matches clusterSelector ${JSON.stringify(selector)} (clusters: ${profiles.map((p) => p.name).join(', ')})`);
  return matching;
}

/**
 * The cluster a call is for: the name it gives when it is one of `names`,
 * else the only cluster when there is one; a name that is none of them, or
 * none given while there are several, is a ValidationError naming the
 * choices. `names` empty (no cluster configured): no name may be given, and
 * the answer is undefined.
 */
export function chooseCluster(names: readonly string[], given: unknown, tool: string): string | undefined {
  const choices = names.join(', ');
  if (given === undefined) {
    if (names.length > 1)
      throw new ValidationError(`${tool} needs a cluster: svc serves ${names.length} clusters (${choices}); give one as cluster`, [
        { field: 'cluster', message: `required: one of ${choices}` },
      ]);
    return names[0];
  }
  if (typeof given !== 'string' || !names.includes(given)) {
    const shown = typeof given === 'string' ? JSON.stringify(given.slice(0, 100)) : typeof given;
    const what = names.length ? `one of ${choices}` : 'none: no cluster is configured';
    throw new ValidationError(`cluster ${shown} is not a cluster svc serves (${what})`, [{ field: 'cluster', message: `must be ${what}` }]);
  }
  return given;
}

/**
 * The roles `caller` holds in this cluster: the cluster's own role mapping
 * when it has one (operator in staging, viewer in production), else the
 * caller's own roles.
 */
export function rolesInCluster(profile: ClusterProfile, caller: Caller): readonly Role[] {
  return profile.roles ? rolesFor(profile.roles, caller.username, caller.groups) : caller.roles;
}

/**
 * The least role a caller must hold in svc to call `tool` before its input,
 * and so its cluster, is read (the request gate, the first check of a tool
 * call): the tool's own least role; but `viewer` when a cluster of the fleet
 * has its own role mapping, which decides the caller's role there and may
 * grant what they hold nowhere else (operator in staging for a viewer). The
 * call's exact role is then checked as its cluster sees the caller; a call
 * for no one cluster, as svc does.
 */
export function leastRoleBeforeCluster(profiles: readonly ClusterProfile[], tool: string): Role {
  return profiles.some((p) => p.roles !== undefined) ? 'viewer' : leastRoleForTool(tool);
}

/** The caller as this cluster sees them: their roles replaced by rolesInCluster. */
export function callerInCluster(profile: ClusterProfile, caller: Caller): Caller {
  const roles = rolesInCluster(profile, caller);
  if (roles.length === caller.roles.length && roles.every((r, i) => r === caller.roles[i])) return caller;
  return { ...caller, roles };
}

/**
 * Whether this call of a tool may write to its cluster: an execution
 * (executeChoice 1), remediate's automatic mode, a deploy or its cleanup
 * (not a preview). Everything else reads (and dry-runs) only.
 */
export function callMayWrite(tool: string, params: Readonly<Record<string, unknown>>): boolean {
  if (tool === 'deployManifests') return params.preview !== true;
  if (tool === 'operate' || tool === 'remediate') return params.executeChoice === 1 || params.mode === 'automatic';
  return false;
}

/**
 * Why this call may not run in this cluster, before any request: a read-only
 * cluster refuses any call that may write (callMayWrite); a cluster whose
 * automatic mode may not write refuses `mode: automatic`.
 */
export function clusterRefusal(profile: ClusterProfile, tool: string, params: Readonly<Record<string, unknown>>): ForbiddenError | undefined {
  if (profile.readOnly && callMayWrite(tool, params))
    return new ForbiddenError(`cluster ${profile.name} is read-only: svc does not write there, so this ${tool} call (which may write) is refused`, {
      cluster: profile.name,
      readOnly: true,
    });
  if (!profile.automaticWrites && params.mode === 'automatic')
    return new ForbiddenError(`cluster ${profile.name} does not allow automatic writes: run ${tool} in manual mode and approve its proposal`, {
      cluster: profile.name,
      automaticWrites: false,
    });
  return undefined;
}
