import { rolloutStatus } from '../../domain/cluster/rollout-status.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { conditionHolds, describeCondition } from '../../domain/evaluation/field-condition.js';
import type { FieldCondition, HealthRule, ObjectRef } from '../../domain/evaluation/scenario.js';
import type { LoadedScenario } from '../evaluation/scenario-loader.js';
import type { ContainerBehaviour, KubeCluster, Obj } from './stand-in.js';
import { readyEndpoints, ingressBackendProblems } from './service-backends.js';
import { jobFinished } from './kube/kube-jobs.js';
import { behaviourHolds, judgedOnCluster } from './behaviour-conditions.js';

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job']);

/** The stored object a reference names (any apiVersion of the kind when it leaves it out). */
export function findObject(c: KubeCluster, ref: ObjectRef): Obj | undefined {
  for (const o of c.objects.values())
    if (o.kind === ref.kind && o.metadata.name === ref.name && (ref.namespace === undefined || o.metadata.namespace === ref.namespace))
      if (ref.apiVersion === undefined || o.apiVersion === ref.apiVersion) return o;
  return undefined;
}

const sameRef = (o: Obj | undefined, ref: ObjectRef | undefined) =>
  !!o && !!ref && o.kind === ref.kind && o.metadata.name === ref.name && (ref.namespace === undefined || o.metadata.namespace === ref.namespace);

/** The Deployment, StatefulSet, DaemonSet or Job a pod belongs to, through its ReplicaSet for a Deployment. */
function workloadOf(c: KubeCluster, pod: Obj): Obj | undefined {
  const byUid = (uid: string) => [...c.objects.values()].find((o) => o.metadata.uid === uid);
  let owner = byUid(pod.metadata.ownerReferences?.find((r: Obj) => r.controller)?.uid ?? '');
  if (owner?.kind === 'ReplicaSet') owner = byUid(owner.metadata.ownerReferences?.find((r: Obj) => r.controller)?.uid ?? '');
  return owner && WORKLOAD_KINDS.has(owner.kind) ? owner : undefined;
}

/**
 * Judges a rule's conditions. For a pod, a condition on the rule's workload
 * reads the pod's own template (the one it was created from), so the pods of
 * an old ReplicaSet keep failing while the new ones start, as in a rollout.
 */
function ruleHolds(c: KubeCluster, rule: HealthRule, pod?: Obj): boolean {
  return rule.healthyWhen.every((cond) => holds(c, rule, cond, pod));
}

/** One condition: on a field of its object, or on the live cluster (an env variable, a behaviour). */
function holds(c: KubeCluster, rule: HealthRule, cond: FieldCondition, pod?: Obj): boolean {
  const object = conditionObject(c, rule, cond, pod);
  return judgedOnCluster(cond) ? behaviourHolds(c, cond, object, rule.container) : conditionHolds(cond, object);
}

function conditionObject(c: KubeCluster, rule: HealthRule, cond: FieldCondition, pod?: Obj): Obj | undefined {
  const ref = cond.object ?? rule.workload!;
  const live = findObject(c, ref);
  if (!pod || !live || !sameRef(live, rule.workload) || cond.object) return live;
  const template = { metadata: { labels: pod.metadata.labels, annotations: pod.metadata.annotations }, spec: pod.spec };
  return { ...live, spec: { ...live.spec, template } };
}

/** The kubelet hook of a scenario: rules whose conditions fail make their workload's pods crash, run unready or stay pending; logs are what they print. */
export function scenarioBehaviour(c: KubeCluster, loaded: LoadedScenario): (pod: Obj, container: Obj) => ContainerBehaviour | undefined {
  const { rules } = loaded.scenario.cluster;
  return (pod, container) => {
    const workload = workloadOf(c, pod);
    const log = loaded.logs.find((l) => l.container === container.name && (sameRef(workload, l.workload) || sameRef(pod, l.pod)))?.text;
    const broken = rules.find(
      (r) => r.whileBroken && sameRef(workload, r.workload) && (!r.container || r.container === container.name) && !ruleHolds(c, r, pod),
    );
    if (!broken && log === undefined) return undefined;
    return { ...(log !== undefined ? { log } : {}), ...(broken?.whileBroken ?? {}) };
  };
}

export interface HealthReport {
  healthy: boolean;
  /** What is still wrong, in words: a rule not holding, a workload missing, not rolled out or not ready. */
  problems: string[];
}

/** Whether the scenario's cluster is healthy now: every rule holds, every fixture workload exists and behaves (a Deployment or StatefulSet rolled out with all replicas ready, a DaemonSet ready on every node it fits, a Job complete), and every Service of them has a ready pod behind it. */
export function judgeHealth(c: KubeCluster, loaded: LoadedScenario): HealthReport {
  const problems: string[] = [];
  for (const rule of loaded.scenario.cluster.rules) {
    if (ruleHolds(c, rule)) continue;
    const name = rule.workload ? `${rule.workload.kind} ${rule.workload.namespace ?? 'default'}/${rule.workload.name}` : 'the object';
    const failing = rule.healthyWhen.filter((cond) => !holds(c, rule, cond));
    problems.push(`${rule.description}: not yet (${failing.map((f) => describeCondition(f, name)).join('; ')})`);
  }
  for (const fixture of loaded.objects.filter((o) => WORKLOAD_KINDS.has(o.kind) && !('status' in o))) {
    const ref = { kind: fixture.kind, name: fixture.metadata.name, namespace: fixture.metadata.namespace ?? 'default' };
    const label = `${ref.kind} ${ref.namespace}/${ref.name}`;
    const live = findObject(c, ref) as KubeObject | undefined;
    if (!live) {
      problems.push(`${label} no longer exists`);
      continue;
    }
    problems.push(...workloadProblems(live, fixture, label));
  }
  problems.push(...servicesWithoutEndpoints(c, loaded));
  problems.push(...ingressBackendProblems(c, loaded.objects));
  return { healthy: problems.length === 0, problems };
}

/** What keeps one workload from being healthy: a Job not complete, a set not rolled out, scaled to 0 or with replicas not ready. */
function workloadProblems(live: KubeObject, fixture: Obj, label: string): string[] {
  const status = (live.status ?? {}) as Obj;
  if (live.kind === 'Job') {
    const finished = jobFinished(live as Obj);
    if (finished === 'Complete') return [];
    const failed = (status.conditions as Obj[] | undefined)?.find((c) => c.type === 'Failed');
    return [
      finished === 'Failed'
        ? `${label} failed: ${failed?.message ?? 'failed'}`
        : `${label} has not completed (${status.succeeded ?? 0} of ${(live.spec as Obj | undefined)?.completions ?? 1} succeeded, ${status.failed ?? 0} failed)`,
    ];
  }
  const rollout = rolloutStatus(live);
  if (live.kind === 'DaemonSet') {
    const desired = Number(status.desiredNumberScheduled ?? 0);
    const ready = Number(status.numberReady ?? 0);
    if (!rollout.done) return [`${label}: ${rollout.message}`];
    return ready < desired ? [`${label}: ${ready} of ${desired} pods ready`] : [];
  }
  const wanted = Number((fixture.spec as Obj | undefined)?.replicas ?? 1);
  const replicas = Number((live.spec as Obj | undefined)?.replicas ?? 1);
  const ready = Number(status.readyReplicas ?? 0);
  if (wanted > 0 && replicas === 0) return [`${label} is scaled to 0`];
  if (!rollout.done) return [`${label}: ${rollout.message}`];
  if (ready < replicas) return [`${label}: ${ready} of ${replicas} replicas ready`];
  return [];
}

/**
 * The fixture's Services that select pods and have no ready pod behind them
 * (what the endpoints controller would publish): a workload that rolled out
 * but serves nobody is not healthy. Only the Services of the fixture's
 * workloads count (one selecting a workload's pods, or named as a workload);
 * a Service for pods the scenario does not model is left out.
 */
function servicesWithoutEndpoints(c: KubeCluster, loaded: LoadedScenario): string[] {
  const out: string[] = [];
  const workloads = loaded.objects.filter((o) => WORKLOAD_KINDS.has(o.kind) && !('status' in o));
  for (const svc of loaded.objects.filter((o) => o.kind === 'Service' && !('status' in o))) {
    const spec = (svc.spec ?? {}) as { selector?: Record<string, string>; type?: string };
    const selector = Object.entries(spec.selector ?? {});
    if (!selector.length || spec.type === 'ExternalName') continue;
    const ns = svc.metadata.namespace ?? 'default';
    const selects = (labels: Record<string, string> | undefined) => selector.every(([k, v]) => labels?.[k] === v);
    const itsWorkload = workloads.some(
      (w) =>
        (w.metadata.namespace ?? 'default') === ns &&
        (w.metadata.name === svc.metadata.name || selects((w.spec as Obj | undefined)?.template?.metadata?.labels as Record<string, string> | undefined)),
    );
    if (!itsWorkload) continue;
    const live = findObject(c, { kind: 'Service', namespace: ns, name: svc.metadata.name });
    if (live && !readyEndpoints(c, live).length) out.push(`Service ${ns}/${svc.metadata.name} has no ready endpoints`);
  }
  return out;
}
