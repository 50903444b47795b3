/**
 * The simulated ResourceQuota admission and quota controller of the
 * Kubernetes API stand-in. Only the quotas it simulates count (created without
 * a `status`, by a fixture or a client); one stored with its status is left as
 * written, as the scenarios that describe a quota in their rules expect.
 *
 * - `quotaRefused`: the API server's answer when a ReplicaSet creates a pod
 *   that would take a quota of its namespace past `spec.hard`. The pod is not
 *   created and the ReplicaSet records what the real controller does: Warning
 *   `FailedCreate` "Error creating: pods "web-5d8f7c9b4-" is forbidden:
 *   exceeded quota: compute, requested: pods=1, used: pods=4, limited:
 *   pods=4" (or "failed quota: compute: must specify limits.memory" for a
 *   container without the resource a compute quota tracks). A rollout whose
 *   surge pod does not fit stalls, as in a real cluster.
 * - `reconcileQuotas`: `status.hard` and `status.used` of every simulated quota.
 *
 * Counted: `pods` (and `count/pods`), `requests.cpu` (or `cpu`),
 * `requests.memory` (or `memory`), `limits.cpu`, `limits.memory`, over the
 * namespace's pods that are neither terminating, Succeeded nor Failed; a pod's
 * resources are the sum of its containers' or its largest init container's,
 * whichever is larger.
 */
import { quantityValue } from '../../../domain/evaluation/field-condition.js';
import type { KubeCluster, Obj } from './kube-cluster.js';

const COMPUTE: Record<string, { field: 'requests' | 'limits'; resource: 'cpu' | 'memory' }> = {
  'requests.cpu': { field: 'requests', resource: 'cpu' },
  cpu: { field: 'requests', resource: 'cpu' },
  'requests.memory': { field: 'requests', resource: 'memory' },
  memory: { field: 'requests', resource: 'memory' },
  'limits.cpu': { field: 'limits', resource: 'cpu' },
  'limits.memory': { field: 'limits', resource: 'memory' },
};
const POD_COUNTS = new Set(['pods', 'count/pods']);

const tracked = (name: string) => POD_COUNTS.has(name) || name in COMPUTE;

/** What one pod spec takes of a quota resource: 1 for a pod count, else its containers' sum or its largest init container. */
function podUsage(spec: Obj, name: string): number {
  if (POD_COUNTS.has(name)) return 1;
  const { field, resource } = COMPUTE[name];
  const of = (c: Obj) => quantityValue(c.resources?.[field]?.[resource]) ?? 0;
  const containers = ((spec.containers ?? []) as Obj[]).reduce((sum, c) => sum + of(c), 0);
  return Math.max(containers, ...((spec.initContainers ?? []) as Obj[]).map(of));
}

/** The compute resource a container of `spec` leaves out although the quota tracks it (the real admission refuses such a pod). */
function unspecified(spec: Obj, names: string[]): string | undefined {
  for (const name of names.filter((n) => n in COMPUTE)) {
    const { field, resource } = COMPUTE[name];
    const all = [...((spec.containers ?? []) as Obj[]), ...((spec.initContainers ?? []) as Obj[])];
    if (all.some((c) => c.resources?.[field]?.[resource] === undefined)) return `${field}.${resource}`;
  }
  return undefined;
}

function livePods(c: KubeCluster, namespace: string): Obj[] {
  return [...c.objects.values()].filter(
    (p) =>
      p.kind === 'Pod' &&
      p.metadata.namespace === namespace &&
      !p.metadata.deletionTimestamp &&
      p.status?.phase !== 'Succeeded' &&
      p.status?.phase !== 'Failed',
  );
}

/** A quantity as the quota controller prints it: pods as a count, cpu in millicores, memory in Mi when it divides. */
function formatQuantity(name: string, v: number): string {
  if (POD_COUNTS.has(name)) return String(v);
  if (COMPUTE[name].resource === 'cpu') return Number.isInteger(v) ? String(v) : `${Math.round(v * 1000)}m`;
  const mi = v / 1024 ** 2;
  return Number.isInteger(mi) && mi > 0 ? (mi % 1024 === 0 ? `${mi / 1024}Gi` : `${mi}Mi`) : String(v);
}

/** What the namespace's pods use of each resource a quota's `spec.hard` names (the ones simulated). */
function usage(c: KubeCluster, quota: Obj): Map<string, number> {
  const pods = livePods(c, quota.metadata.namespace);
  const used = new Map<string, number>();
  for (const name of Object.keys(quota.spec?.hard ?? {}).filter(tracked))
    used.set(
      name,
      pods.reduce((sum, p) => sum + podUsage(p.spec ?? {}, name), 0),
    );
  return used;
}

/** Why a quota of the namespace refuses a pod from `template`, in the API server's words; undefined when every quota admits it. */
function refusal(c: KubeCluster, namespace: string, template: Obj): string | undefined {
  const spec = template.spec ?? {};
  for (const quota of c.all('ResourceQuota').filter((q) => q.metadata.namespace === namespace)) {
    const hard = (quota.spec?.hard ?? {}) as Record<string, unknown>;
    const name = quota.metadata.name;
    const missing = unspecified(spec, Object.keys(hard));
    if (missing) return `failed quota: ${name}: must specify ${missing}`;
    const used = usage(c, quota);
    const over = [...used.keys()].filter((r) => used.get(r)! + podUsage(spec, r) > (quantityValue(hard[r]) ?? Infinity)).sort();
    if (!over.length) continue;
    const list = (value: (r: string) => number) => over.map((r) => `${r}=${formatQuantity(r, value(r))}`).join(',');
    return `exceeded quota: ${name}, requested: ${list((r) => podUsage(spec, r))}, used: ${list((r) => used.get(r)!)}, limited: ${list((r) => quantityValue(hard[r])!)}`;
  }
  return undefined;
}

/** Whether the quota admission refuses the next pod of ReplicaSet `rs` (recording the controller's FailedCreate event when it does). */
export function quotaRefused(c: KubeCluster, rs: Obj): boolean {
  const why = refusal(c, rs.metadata.namespace, rs.spec.template ?? {});
  if (why) c.event(rs, 'Warning', 'FailedCreate', `Error creating: pods "${rs.metadata.name}-" is forbidden: ${why}`, 'replicaset-controller');
  return why !== undefined;
}

/** Writes `status.hard` and `status.used` of every simulated ResourceQuota from the pods of its namespace. */
export function reconcileQuotas(c: KubeCluster): void {
  for (const quota of c.all('ResourceQuota')) {
    const hard = (quota.spec?.hard ?? {}) as Record<string, unknown>;
    const used = usage(c, quota);
    c.update(quota, (q) => {
      q.status = { hard: { ...hard }, used: Object.fromEntries([...used].map(([r, v]) => [r, formatQuantity(r, v)])) };
    });
  }
}
