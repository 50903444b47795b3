import type { ApiResourceInfo, ResourceRef } from '../cluster/kube-types.js';

/**
 * The object a write is about, as the API server's discovery describes its
 * kind: never the model's words. `namespace` is set exactly when the kind is
 * namespaced.
 */
export interface ResolvedTarget {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  /** Plural resource name from discovery, e.g. `deployments`, `nodes`. */
  resource: string;
  namespaced: boolean;
  name: string;
  namespace?: string;
}

/** `group/Kind ns/name` (no group for core; no namespace when cluster-scoped), for messages. */
export const describeResolved = (t: ResolvedTarget): string => `${t.group ? `${t.group}/` : ''}${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}`;

/** The ResourceRef of a resolved target, for the cluster ports. */
export const refOf = (t: ResolvedTarget): ResourceRef => ({
  apiVersion: t.group ? `${t.group}/${t.version}` : t.version,
  kind: t.kind,
  name: t.name,
  ...(t.namespace ? { namespace: t.namespace } : {}),
});

/**
 * Resolves what a model named (`ref`) against what discovery says the
 * cluster serves for that apiVersion and kind (`served`, undefined when it
 * serves none). Refused, with the reason for a person: a kind the cluster
 * does not serve; a namespace given for a cluster-scoped kind (a Node,
 * PriorityClass or ClusterRoleBinding "in" shop is still cluster-wide); a
 * namespaced kind without a namespace (svc never falls back to a default).
 * Pure: the caller does the discovery.
 */
export function resolveTarget(ref: ResourceRef, served: ApiResourceInfo | undefined): { target: ResolvedTarget } | { refusal: string } {
  const what = `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
  if (!served || served.kind !== ref.kind) return { refusal: `${what}: the cluster serves no kind ${ref.kind} in ${ref.apiVersion}` };
  if (!served.namespaced && ref.namespace)
    return {
      refusal: `${what}: ${ref.kind} is cluster-scoped (discovery), so namespace ${ref.namespace} does not limit it: svc refuses a namespace on a cluster-scoped kind`,
    };
  if (served.namespaced && !ref.namespace)
    return { refusal: `${what}: ${ref.kind} is namespaced and no namespace was given: svc never writes to a default namespace` };
  const base = { group: served.group, version: served.version, kind: served.kind, resource: served.resource, namespaced: served.namespaced, name: ref.name };
  return { target: served.namespaced ? { ...base, namespace: ref.namespace } : base };
}
