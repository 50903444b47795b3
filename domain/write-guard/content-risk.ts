import type { KubeObject } from '../cluster/kube-types.js';
import { fieldFindings, type RiskFindings } from './field-risk.js';
import type { KindRisk } from './kind-risk.js';
import { changedLeaves } from './leaf-changes.js';
import { podFindings, type PodCheckSettings } from './pod-risk.js';
import type { ResolvedTarget } from './resolved-target.js';
import { sensitiveKind } from './rules/rule-table.js';

export type { RiskFindings };

/** Namespaces whose objects keep the cluster itself running: any write there is high risk. */
export const SYSTEM_NAMESPACES: ReadonlySet<string> = new Set(['kube-system', 'kube-public', 'kube-node-lease']);

/**
 * Why the kind and place alone make a write high risk (empty when they do
 * not): cluster-scoped; a sensitive kind of the rule table (RBAC,
 * admission, policy engines, NetworkPolicies of any group, mesh security,
 * Secrets, ServiceAccounts, Namespaces, Nodes, PersistentVolumes, CRDs,
 * APIServices, CSRs, PriorityClasses, RuntimeClasses); a protected
 * namespace (system namespaces, svc's own). Automatic mode never writes
 * such a target.
 */
export function targetFindings(t: ResolvedTarget, protectedNamespaces: readonly string[]): string[] {
  const out: string[] = [];
  if (!t.namespaced) out.push(`${t.kind} is cluster-scoped: the change is cluster-wide`);
  const why = sensitiveKind(t.group, t.kind);
  if (why) out.push(`${t.kind} is a sensitive kind: ${why}`);
  if (t.namespace && protectedNamespaces.includes(t.namespace))
    out.push(SYSTEM_NAMESPACES.has(t.namespace) ? `${t.namespace} is a system namespace` : `${t.namespace} is svc's own namespace`);
  return out;
}

/**
 * What the object as the API server would store it (`after`, from the dry
 * run) changes, compared with the live object (`live`, null when created):
 * each changed leaf judged by the rule table (fieldFindings: unknown kinds
 * and fields high), and each pod found by shape judged as a pod
 * (podFindings: the Pod Security Standards, new references, registries).
 */
export function contentFindings(
  t: ResolvedTarget,
  live: KubeObject | null,
  after: KubeObject,
  settings: PodCheckSettings & { kindRisks: readonly KindRisk[] },
): RiskFindings {
  const leaves = changedLeaves(live, after);
  if (!leaves.length) return { high: [], medium: [] };
  const fields = fieldFindings(t, live, after, leaves, settings.kindRisks);
  const pods = podFindings(live, after, leaves, settings);
  // a sensitive kind's rule already says why every field is high
  const sensitive = new Set(targetFindings(t, []));
  return { high: [...new Set([...pods.high, ...fields.high.filter((r) => !sensitive.has(r))])], medium: [...new Set([...pods.medium, ...fields.medium])] };
}
