/**
 * The filters of the simulated scheduler, in the order of kube-scheduler's
 * default plugins (NodeUnschedulable, TaintToleration, NodeAffinity,
 * NodeResourcesFit): which Node objects a pod fits, and when it fits none, the
 * `FailedScheduling` message the real scheduler writes ("0/5 nodes are
 * available: 2 node(s) had untolerated taint {nvidia.com/gpu: present}, 3
 * node(s) didn't match Pod's node affinity/selector. preemption: ...").
 */
import { quantityValue } from '../../../domain/evaluation/field-condition.js';
import type { KubeCluster, Obj } from './kube-cluster.js';

/** The stand-in's one node when a scenario has no Node objects. */
export const DEFAULT_NODE = 'kind-worker';

export interface FitOptions {
  /** A DaemonSet's pod: a cordoned node still takes it, and its controller does not weigh requests. */
  daemon?: boolean;
  /** Weigh requests against allocatable as if the node ran nothing else (whether the pod can ever fit). */
  emptyNodes?: boolean;
}

function tolerates(tolerations: Obj[], taint: Obj): boolean {
  return tolerations.some(
    (t) =>
      (t.operator === 'Exists' && (t.key === undefined || t.key === taint.key)) ||
      (t.key === taint.key && (t.value ?? '') === (taint.value ?? '') && (!t.effect || t.effect === taint.effect)),
  );
}

/** A label selector against labels: `matchLabels` and `matchExpressions` all hold; an absent or empty selector selects everything. */
export function selects(selector: Obj | undefined, labels: Record<string, string>): boolean {
  const matchLabels = Object.entries((selector?.matchLabels ?? {}) as Record<string, string>);
  return matchLabels.every(([k, v]) => labels[k] === v) && ((selector?.matchExpressions ?? []) as Obj[]).every((r) => requirementHolds(labels, r));
}

/** One `matchExpressions` requirement of a node selector term (or a label selector) against the labels of a node (or a pod). */
export function requirementHolds(labels: Record<string, string>, r: Obj): boolean {
  const value = labels[r.key];
  const values: string[] = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt':
      return value !== undefined && (r.operator === 'Gt' ? Number(value) > Number(values[0]) : Number(value) < Number(values[0]));
    default:
      return false;
  }
}

/** `nodeSelector` and the required node affinity (any term, every expression of it) against a node's labels. */
function matchesNode(spec: Obj, node: Obj): boolean {
  const labels = (node.metadata.labels ?? {}) as Record<string, string>;
  if (!Object.entries((spec.nodeSelector ?? {}) as Record<string, string>).every(([k, v]) => labels[k] === v)) return false;
  const terms: Obj[] | undefined = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return !terms?.length || terms.some((t) => ((t.matchExpressions ?? []) as Obj[]).every((r) => requirementHolds(labels, r)));
}

/** What a pod asks for: the sum of its containers' requests (a limit alone counts as the request), or its largest init container's. */
function podRequests(spec: Obj): Record<'cpu' | 'memory', number> {
  const of = (k: Obj, r: 'cpu' | 'memory') => quantityValue(k.resources?.requests?.[r] ?? k.resources?.limits?.[r]) ?? 0;
  const need = (r: 'cpu' | 'memory') =>
    Math.max(
      ((spec.containers ?? []) as Obj[]).reduce((sum, k) => sum + of(k, r), 0),
      ...((spec.initContainers ?? []) as Obj[]).map((k) => of(k, r)),
    );
  return { cpu: need('cpu'), memory: need('memory') };
}

/** The resources a node lacks for the pod: its allocatable less what the pods bound to it request (none when it states no allocatable). */
function insufficient(c: KubeCluster, node: Obj, spec: Obj, emptyNodes: boolean): string[] {
  const bound = emptyNodes
    ? []
    : [...c.objects.values()].filter((p) => p.kind === 'Pod' && p.spec?.nodeName === node.metadata.name && !['Succeeded', 'Failed'].includes(p.status?.phase));
  const want = podRequests(spec);
  return (['cpu', 'memory'] as const)
    .filter((r) => {
      const allocatable = quantityValue(node.status?.allocatable?.[r]);
      if (allocatable === undefined) return false;
      const used = bound.reduce((sum, p) => sum + podRequests(p.spec)[r], 0);
      return used + want[r] > allocatable;
    })
    .map((r) => `Insufficient ${r}`);
}

/** Why a node does not take the pod (the first filter it fails), or nothing when it fits. */
function misfit(c: KubeCluster, node: Obj, spec: Obj, opts: FitOptions): string[] {
  if (!opts.daemon && node.spec?.unschedulable) return ['node(s) were unschedulable'];
  const taint = ((node.spec?.taints ?? []) as Obj[]).find((t) => t.effect !== 'PreferNoSchedule' && !tolerates(spec.tolerations ?? [], t));
  if (taint) return [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`];
  if (!matchesNode(spec, node)) return ["node(s) didn't match Pod's node affinity/selector"];
  return opts.daemon ? [] : insufficient(c, node, spec, opts.emptyNodes === true);
}

const nodes = (c: KubeCluster) => [...c.objects.values()].filter((o) => o.kind === 'Node');

/**
 * The names of the Node objects a pod with `spec` fits, sorted: its
 * `nodeSelector` and required node affinity match the node's labels, every
 * NoSchedule/NoExecute taint is tolerated, the node is not cordoned (but for a
 * DaemonSet's pod) and has the cpu and memory it requests left. With no Node
 * objects at all, the stand-in's one node, `kind-worker`.
 */
export function nodesFitting(c: KubeCluster, spec: Obj, opts: FitOptions = {}): string[] {
  const all = nodes(c);
  if (!all.length) return [DEFAULT_NODE];
  return all
    .filter((n) => misfit(c, n, spec, opts).length === 0)
    .map((n) => n.metadata.name as string)
    .sort();
}

/** The scheduler's `FailedScheduling` message when the pod fits no Node; undefined when it fits one (or the cluster has no Node objects). */
export function unschedulableMessage(c: KubeCluster, spec: Obj): string | undefined {
  const all = nodes(c);
  const why = all.map((n) => misfit(c, n, spec, {}));
  if (!all.length || why.some((w) => w.length === 0)) return undefined;
  const histogram = (reasons: string[]) => {
    const counts = new Map<string, number>();
    for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
    return [...counts].map(([r, n]) => `${n} ${r}`).sort();
  };
  const preemption = why.map((w) =>
    w.every((r) => r.startsWith('Insufficient')) ? 'No preemption victims found for incoming pod' : 'Preemption is not helpful for scheduling',
  );
  const of = `0/${all.length} nodes are available`;
  return `${of}: ${histogram(why.flat()).join(', ')}. preemption: ${of}: ${histogram(preemption).join(', ')}.`;
}
