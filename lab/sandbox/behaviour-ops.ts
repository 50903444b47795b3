/**
 * Behaviour conditions for operate scenarios (docs/evaluation.md, "Behaviour
 * conditions"): the rollout bounds a Deployment's controller works with, and
 * whether the scheduler can pile a workload's pods into one node. Each judges
 * the effect, so `maxSurge: 50%` of 4 replicas passes where `2` does, and a
 * required pod anti-affinity passes where a topology spread constraint does.
 */
import type { FieldCondition } from '../../domain/evaluation/scenario.js';
import type { KubeCluster, Obj } from './stand-in.js';
import { nodesFitting } from './kube/kube-scheduler.js';
import { selects } from './kube/kube-scheduler.js';

/** What the Deployment controller assumes when the strategy leaves a bound out. */
const DEFAULT_BOUND = '25%';

/**
 * A rolling-update bound in pods, as the Deployment controller resolves it: an
 * integer as is, a percentage of the replicas rounded up (maxSurge) or down
 * (maxUnavailable). Undefined for a value the API server would refuse.
 */
export function boundInPods(value: unknown, replicas: number, roundUp: boolean): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  const m = typeof value === 'string' ? /^(\d{1,5})%$/.exec(value) : null;
  if (!m) return undefined;
  const exact = (Number(m[1]) * replicas) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/**
 * The surge and unavailability a Deployment rolls out with, in pods; undefined
 * for a Recreate strategy (no surge at all) or a bound that does not resolve.
 * When both resolve to 0 the controller lets one pod be unavailable, or the
 * rollout could never start.
 */
export function rolloutBounds(deployment: Obj): { maxSurge: number; maxUnavailable: number } | undefined {
  const strategy: Obj = deployment.spec?.strategy ?? {};
  if ((strategy.type ?? 'RollingUpdate') !== 'RollingUpdate') return undefined;
  const replicas: number = deployment.spec?.replicas ?? 1;
  const maxSurge = boundInPods(strategy.rollingUpdate?.maxSurge ?? DEFAULT_BOUND, replicas, true);
  const maxUnavailable = boundInPods(strategy.rollingUpdate?.maxUnavailable ?? DEFAULT_BOUND, replicas, false);
  if (maxSurge === undefined || maxUnavailable === undefined) return undefined;
  return { maxSurge, maxUnavailable: maxSurge === 0 && maxUnavailable === 0 ? 1 : maxUnavailable };
}

/** Whether the Deployment's effective rollout bounds are the condition's (maxUnavailable only when it names one). */
export function rollsOutWith(deployment: Obj, want: NonNullable<FieldCondition['rollout']>): boolean {
  if (deployment.kind !== 'Deployment') return false;
  const bounds = rolloutBounds(deployment);
  return !!bounds && bounds.maxSurge === want.maxSurge && (want.maxUnavailable === undefined || bounds.maxUnavailable === want.maxUnavailable);
}

/** The labels of the Node of this name; none when it does not exist. */
export function nodeLabelsOf(c: KubeCluster, node: string): Record<string, string | undefined> {
  return [...c.objects.values()].find((o) => o.kind === 'Node' && o.metadata.name === node)?.metadata.labels ?? {};
}

/**
 * The most pods of the workload the scheduler may put in one domain of
 * `topologyKey` while other domains exist: one with a required pod
 * anti-affinity on that key against the pods' own labels (which leaves a pod
 * Pending when domains run out), `maxSkew` with a `DoNotSchedule` spread
 * constraint on it selecting them. Unbounded when neither holds: a preferred
 * anti-affinity or a `ScheduleAnyway` constraint is weighed against other
 * scores, so it does not make sure.
 */
function perDomainLimit(podSpec: Obj, labels: Record<string, string>, topologyKey: string): { limit: number; antiAffinity: boolean } {
  const ownPods = (selector: Obj | undefined) => selector !== undefined && selects(selector, labels);
  const antiAffinity: Obj[] = podSpec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  if (antiAffinity.some((t) => t.topologyKey === topologyKey && ownPods(t.labelSelector) && !t.namespaces?.length && !t.namespaceSelector))
    return { limit: 1, antiAffinity: true };
  const skews = ((podSpec.topologySpreadConstraints ?? []) as Obj[])
    .filter((t) => t.topologyKey === topologyKey && t.whenUnsatisfiable === 'DoNotSchedule' && ownPods(t.labelSelector))
    .map((t) => Number(t.maxSkew))
    .filter((n) => Number.isInteger(n) && n >= 1);
  return { limit: skews.length ? Math.min(...skews) : Infinity, antiAffinity: false };
}

/**
 * Whether the workload's replicas cannot all land in one domain of
 * `topologyKey` among the Nodes they fit, and yet all schedule: at least two
 * domains and a per-domain limit below the replica count (all in one domain
 * would skew by the replica count); with an anti-affinity, as many domains as
 * replicas, or the rest stay Pending. Nodes without the label are no domain.
 */
export function spreadsPods(c: KubeCluster, workload: Obj, spreads: NonNullable<FieldCondition['spreads']>): boolean {
  const podSpec: Obj = workload.spec?.template?.spec ?? {};
  const labels = (workload.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
  const replicas: number = workload.spec?.replicas ?? 1;
  const domains = new Set(nodesFitting(c, podSpec, { emptyNodes: true }).map((n) => nodeLabelsOf(c, n)[spreads.topologyKey]));
  domains.delete(undefined);
  const { limit, antiAffinity } = perDomainLimit(podSpec, labels, spreads.topologyKey);
  return domains.size >= 2 && limit < replicas && (!antiAffinity || domains.size >= replicas);
}
