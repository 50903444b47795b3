import type { ResourceRef } from '../cluster/kube-types.js';
import { apiGroup } from '../cluster/patch-type.js';
import { formatKindName, kindNamed, type KindName } from '../write-guard/kind-names.js';
import type { GuardSettings, KindRisk, PodSecurityLevel } from '../write-guard/write-guard.js';
import { SYSTEM_NAMESPACES } from '../write-guard/content-risk.js';

/**
 * Where svc may write, from the configuration: `namespaces`
 * (SVC_WRITE_NAMESPACES) and `kinds` (SVC_WRITE_KINDS, by group and kind),
 * empty meaning all; `imageRegistries` (SVC_IMAGE_REGISTRIES), empty meaning
 * any; `ownNamespace` is the namespace svc itself runs in (SVC_NAMESPACE),
 * whose objects are always high risk; `podSecurityLevel`
 * (SVC_POD_SECURITY_LEVEL, default baseline) where a namespace enforces no
 * level; `kindRisks` (SVC_KIND_RISK), the risk of kinds svc has no rules for.
 */
export interface WriteScope {
  namespaces: readonly string[];
  kinds: readonly KindName[];
  imageRegistries?: readonly string[];
  ownNamespace?: string;
  podSecurityLevel?: PodSecurityLevel;
  kindRisks?: readonly KindRisk[];
  /** More namespaces treated as svc's own (always high risk, never written automatically): a fleet cluster's `protectedNamespaces`. */
  protectedNamespaces?: readonly string[];
}

export const OPEN_WRITE_SCOPE: WriteScope = { namespaces: [], kinds: [] };

export { SYSTEM_NAMESPACES };

export const describeTarget = (t: ResourceRef) => `${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}`;

/** The write guard's settings for a scope: the allow-lists, the registries, the protected namespaces (system ones and svc's own), the Pod Security level (baseline unless set) and the kinds' stated risks. */
export function guardSettingsOf(scope: WriteScope): GuardSettings {
  return {
    kinds: scope.kinds,
    namespaces: scope.namespaces,
    protectedNamespaces: [...SYSTEM_NAMESPACES, ...(scope.ownNamespace ? [scope.ownNamespace] : []), ...(scope.protectedNamespaces ?? [])],
    imageRegistries: scope.imageRegistries ?? [],
    podSecurityLevel: scope.podSecurityLevel ?? 'baseline',
    kindRisks: scope.kindRisks ?? [],
  };
}

/**
 * Why a write to `target` is outside the allow-lists, naming the list, or
 * undefined when it is inside. The kind is judged with the group of its
 * apiVersion; a target without a namespace is outside any namespace list.
 * Checked before any request. remediate and operate check the target as
 * discovery resolves it (checkBeforeIo in domain/write-guard), which also
 * knows a cluster-scoped kind given a namespace.
 */
export function scopeRefusal(target: ResourceRef, scope: WriteScope): string | undefined {
  if (!kindNamed(scope.kinds, apiGroup(target.apiVersion), target.kind))
    return `${describeTarget(target)} is outside SVC_WRITE_KINDS (${scope.kinds.map(formatKindName).join(', ')}): svc writes only those kinds`;
  if (scope.namespaces.length > 0 && !(target.namespace && scope.namespaces.includes(target.namespace))) {
    const where = target.namespace ? `namespace ${target.namespace}` : 'a cluster-scoped object';
    return `${describeTarget(target)} is in ${where}, outside SVC_WRITE_NAMESPACES (${scope.namespaces.join(', ')}): svc writes only in those namespaces`;
  }
  return undefined;
}
