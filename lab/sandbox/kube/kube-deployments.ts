/**
 * The simulated Deployment controller of the Kubernetes API stand-in.
 *
 * - A Deployment (with containers in its template; one without is left alone,
 *   as a real API server would not have stored it) owns one ReplicaSet per pod
 *   template: `<deploy>-<pod-template-hash>`, selector and labels with
 *   `pod-template-hash`, annotations `deployment.kubernetes.io/revision`,
 *   `desired-replicas`, `max-replicas`. Going back to an earlier template reuses
 *   its ReplicaSet under a new revision (rollback).
 * - Created or scaled while no rollout runs: the ReplicaSet gets `spec.replicas`
 *   at once. A template change is a RollingUpdate (maxSurge / maxUnavailable,
 *   default 25%, as the real controller rounds them) of at most one pod up and
 *   one pod down per tick, scaling down unready old pods first and keeping the
 *   minimum available; a new ReplicaSet whose pods never get ready stalls it,
 *   like the real one. `Recreate` scales the old ReplicaSets to 0 first.
 *   Every scaling is a Normal `ScalingReplicaSet` event
 *   ("Scaled up replica set web-5d8f7c9b4 to 2 from 1").
 * - Status as the real controller computes it: observedGeneration, replicas,
 *   updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas (zeros
 *   omitted); condition Available (MinimumReplicasAvailable /
 *   MinimumReplicasUnavailable) and Progressing (NewReplicaSetCreated,
 *   ReplicaSetUpdated, NewReplicaSetAvailable, or False ProgressDeadlineExceeded
 *   once `spec.progressDeadlineSeconds`, default 600, pass on the simulated
 *   clock without progress).
 */
import { safeHash, type KubeCluster, type Obj } from './kube-cluster.js';
import { podReady } from './kube-pods.js';
import { ownerReference } from './kube-replicasets.js';

const REVISION = 'deployment.kubernetes.io/revision';

function simulated(c: KubeCluster): Obj[] {
  return c.all('Deployment').filter((d) => d.spec?.template?.spec?.containers?.length);
}

/** desired replicas, maxSurge and maxUnavailable resolved like the real controller. */
export function rollingParams(d: Obj): { desired: number; surge: number; unavailable: number } {
  const desired = d.spec.replicas ?? 1;
  if (d.spec.strategy?.type === 'Recreate' || desired === 0) return { desired, surge: 0, unavailable: 0 };
  const ru = d.spec.strategy?.rollingUpdate ?? {};
  const resolve = (v: unknown, round: (n: number) => number) =>
    typeof v === 'string' && v.endsWith('%') ? round((Number(v.slice(0, -1)) / 100) * desired) : Number(v);
  const surge = resolve(ru.maxSurge ?? '25%', Math.ceil);
  const unavailable = resolve(ru.maxUnavailable ?? '25%', Math.floor);
  return { desired, surge, unavailable: surge === 0 && unavailable === 0 ? 1 : unavailable };
}

const templateHash = (d: Obj) => safeHash(d.spec.template);
const revisionOf = (o: Obj) => Number(o.metadata.annotations?.[REVISION] ?? 0);
const readyPods = (c: KubeCluster, rs: Obj) => c.owned(rs, 'Pod').filter(podReady).length;
const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);

/** Creates or scales ReplicaSets; with `rolloutStep`, moves a running rollout one step. */
export function reconcileDeployments(c: KubeCluster, rolloutStep: boolean): void {
  for (const d of simulated(c)) {
    const hash = templateHash(d);
    const sets = c.owned(d, 'ReplicaSet');
    const { desired, surge, unavailable } = rollingParams(d);
    const latest = Math.max(0, ...sets.map(revisionOf));
    let newRS = sets.find((rs) => rs.metadata.labels?.['pod-template-hash'] === hash);
    const old = sets.filter((rs) => rs !== newRS);
    const oldReplicas = () => sum(old.map((rs) => rs.spec.replicas));
    if (!newRS) newRS = createReplicaSet(c, d, hash, latest + 1);
    else if (revisionOf(newRS) < latest) c.update(newRS, (rs) => (rs.metadata.annotations[REVISION] = String(latest + 1)));
    const rs = newRS;
    c.update(d, (o) => (o.metadata.annotations = { ...o.metadata.annotations, [REVISION]: String(revisionOf(rs)) }));
    c.update(rs, (r) =>
      Object.assign(r.metadata.annotations, {
        'deployment.kubernetes.io/desired-replicas': String(desired),
        'deployment.kubernetes.io/max-replicas': String(desired + surge),
      }),
    );
    if (oldReplicas() === 0 || rs.spec.replicas > desired) {
      scale(c, d, rs, oldReplicas() === 0 ? desired : Math.min(rs.spec.replicas, desired));
      continue;
    }
    if (!rolloutStep) continue;
    if (d.spec.strategy?.type === 'Recreate') {
      for (const o of old) scale(c, d, o, 0);
      continue;
    }
    if (rs.spec.replicas < desired && desired + surge - (rs.spec.replicas + oldReplicas()) > 0) scale(c, d, rs, rs.spec.replicas + 1);
    const total = rs.spec.replicas + oldReplicas();
    const minAvailable = desired - unavailable;
    const newUnavailable = rs.spec.replicas - readyPods(c, rs);
    const available = readyPods(c, rs) + sum(old.map((o) => readyPods(c, o)));
    const unhealthy = old.find((o) => o.spec.replicas > readyPods(c, o));
    const healthy = old.find((o) => o.spec.replicas > 0);
    if (unhealthy && total - minAvailable - newUnavailable > 0) scale(c, d, unhealthy, unhealthy.spec.replicas - 1);
    else if (healthy && available - minAvailable > 0) scale(c, d, healthy, healthy.spec.replicas - 1);
  }
}

function createReplicaSet(c: KubeCluster, d: Obj, hash: string, revision: number): Obj {
  const labels = { ...d.spec.template.metadata?.labels, 'pod-template-hash': hash };
  const template = structuredClone(d.spec.template);
  template.metadata = { ...template.metadata, labels };
  return c.insert({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: d.metadata.namespace,
      labels,
      annotations: { [REVISION]: String(revision) },
      ownerReferences: [ownerReference(d)],
    },
    spec: {
      replicas: 0,
      minReadySeconds: d.spec.minReadySeconds ?? 0,
      selector: { matchLabels: { ...d.spec.selector?.matchLabels, 'pod-template-hash': hash } },
      template,
    },
  });
}

function scale(c: KubeCluster, d: Obj, rs: Obj, to: number): void {
  const from = rs.spec.replicas;
  if (from === to) return;
  c.update(rs, (r) => (r.spec.replicas = to));
  c.event(
    d,
    'Normal',
    'ScalingReplicaSet',
    `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata.name} to ${to} from ${from}`,
    'deployment-controller',
  );
}

/** Writes every simulated Deployment's status from its ReplicaSets and pods. */
export function updateDeploymentStatuses(c: KubeCluster): void {
  for (const d of simulated(c)) {
    const sets = c.owned(d, 'ReplicaSet');
    const newRS = sets.find((rs) => rs.metadata.labels?.['pod-template-hash'] === templateHash(d));
    if (!newRS) continue;
    const { desired, unavailable } = rollingParams(d);
    const pods = sets.flatMap((rs) => c.owned(rs, 'Pod'));
    const updated = c.owned(newRS, 'Pod');
    const available = pods.filter(podReady).length;
    const counts: Obj = {
      replicas: pods.length,
      updatedReplicas: updated.length,
      readyReplicas: available,
      availableReplicas: available,
      unavailableReplicas: Math.max(0, sum(sets.map((rs) => rs.spec.replicas)) - available),
    };
    for (const k of Object.keys(counts)) if (counts[k] === 0) delete counts[k];
    const prev: Obj = d.status ?? {};
    const moved = ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas'].some((k) => (prev[k] ?? 0) !== (counts[k] ?? 0));
    const complete = updated.length === desired && pods.length === desired && updated.filter(podReady).length === desired;
    const now = c.now();
    const cond = (type: string, ok: boolean, reason: string, message: string, touch: boolean) => {
      const old = prev.conditions?.find((x: Obj) => x.type === type);
      const status = ok ? 'True' : 'False';
      if (old && old.status === status && old.reason === reason && !touch) return old;
      return { type, status, lastUpdateTime: now, lastTransitionTime: old?.status === status ? old.lastTransitionTime : now, reason, message };
    };
    const rsName = newRS.metadata.name;
    const oldProgress = prev.conditions?.find((x: Obj) => x.type === 'Progressing');
    const deadlineMs = (d.spec.progressDeadlineSeconds ?? 600) * 1000;
    let progressing: Obj;
    if (complete) progressing = cond('Progressing', true, 'NewReplicaSetAvailable', `ReplicaSet "${rsName}" has successfully progressed.`, false);
    else if (newRS.metadata.creationTimestamp === now && !moved)
      progressing = cond('Progressing', true, 'NewReplicaSetCreated', `Created new replica set "${rsName}"`, true);
    else if (moved || !oldProgress || oldProgress.reason === 'NewReplicaSetAvailable')
      progressing = cond('Progressing', true, 'ReplicaSetUpdated', `ReplicaSet "${rsName}" is progressing.`, true);
    else if (oldProgress.reason !== 'ProgressDeadlineExceeded' && c.nowMs() - Date.parse(oldProgress.lastUpdateTime) > deadlineMs) {
      progressing = cond('Progressing', false, 'ProgressDeadlineExceeded', `ReplicaSet "${rsName}" has timed out progressing.`, true);
    } else progressing = oldProgress;
    const availableCond =
      available >= desired - unavailable
        ? cond('Available', true, 'MinimumReplicasAvailable', 'Deployment has minimum availability.', false)
        : cond('Available', false, 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', false);
    c.update(d, (o) => (o.status = { observedGeneration: o.metadata.generation, ...counts, conditions: [availableCond, progressing] }));
  }
}
