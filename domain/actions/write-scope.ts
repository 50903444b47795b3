import type { ResourceRef } from '../cluster/kube-types.js';

/**
 * Where svc may write, from the configuration: `namespaces`
 * (SVC_WRITE_NAMESPACES) and `kinds` (SVC_WRITE_KINDS), empty meaning all;
 * `ownNamespace` is the namespace svc itself runs in (SVC_NAMESPACE), whose
 * objects are always high risk.
 */
export interface WriteScope {
  namespaces: readonly string[];
  kinds: readonly string[];
  ownNamespace?: string;
}

export const OPEN_WRITE_SCOPE: WriteScope = { namespaces: [], kinds: [] };

/** Namespaces whose objects keep the cluster itself running: any write there is high risk. */
export const SYSTEM_NAMESPACES: ReadonlySet<string> = new Set(['kube-system', 'kube-public', 'kube-node-lease']);

export const describeTarget = (t: ResourceRef) => `${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}`;

/**
 * Why a write to `target` is outside the allow-lists, naming the list, or
 * undefined when it is inside. A cluster-scoped object is outside any
 * namespace list. Checked before any dry run.
 */
export function scopeRefusal(target: ResourceRef, scope: WriteScope): string | undefined {
  if (scope.kinds.length > 0 && !scope.kinds.includes(target.kind))
    return `${describeTarget(target)} is outside SVC_WRITE_KINDS (${scope.kinds.join(', ')}): svc writes only those kinds`;
  if (scope.namespaces.length > 0 && !(target.namespace && scope.namespaces.includes(target.namespace))) {
    const where = target.namespace ? `namespace ${target.namespace}` : 'a cluster-scoped object';
    return `${describeTarget(target)} is in ${where}, outside SVC_WRITE_NAMESPACES (${scope.namespaces.join(', ')}): svc writes only in those namespaces`;
  }
  return undefined;
}
