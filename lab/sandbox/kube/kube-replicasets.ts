/**
 * The simulated ReplicaSet controller and garbage collector of the Kubernetes
 * API stand-in.
 *
 * - `reconcileReplicaSets`: every simulated ReplicaSet keeps `spec.replicas`
 *   pods named `<rs>-<5 random chars>` (generateName), labelled from its
 *   template and owned by it (ownerReferences, controller: true). A pod deleted
 *   by hand is replaced at once (Normal `SuccessfulCreate`); extra pods go
 *   unready first, then newest first (`SuccessfulDelete`); a pod a quota of
 *   the namespace refuses is not created (kube-quotas.ts). Status: replicas,
 *   fullyLabeledReplicas, readyReplicas, availableReplicas, observedGeneration.
 * - `collectGarbage`: background propagation; a simulated object whose
 *   controller owner is gone is deleted, to a fixed point (Deployment ->
 *   ReplicaSets -> Pods).
 * - `ownerReference` / `createPod`: shared with the other controllers.
 */
import type { KubeCluster, Obj } from './kube-cluster.js';
import { podReady, schedulePod } from './kube-pods.js';
import { quotaRefused } from './kube-quotas.js';

export function ownerReference(owner: Obj): Obj {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

/** Creates and schedules a pod from `owner`'s template (`extraSpec`: what the controller adds, a DaemonSet's nodeName). */
export function createPod(c: KubeCluster, owner: Obj, name: string, extraLabels: Record<string, string> = {}, extraSpec: Obj = {}): Obj {
  const template = structuredClone(owner.spec.template ?? {});
  const pod = c.insert({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: owner.metadata.namespace,
      ...(owner.kind === 'ReplicaSet' || owner.kind === 'Job' || owner.kind === 'DaemonSet' ? { generateName: `${owner.metadata.name}-` } : {}),
      labels: { ...template.metadata?.labels, ...extraLabels },
      ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
      ownerReferences: [ownerReference(owner)],
    },
    spec: { ...(template.spec ?? {}), ...extraSpec },
  });
  schedulePod(c, pod);
  return pod;
}

export function reconcileReplicaSets(c: KubeCluster): void {
  for (const rs of c.all('ReplicaSet')) {
    const want = rs.spec.replicas ?? 1;
    let pods = c.owned(rs, 'Pod');
    for (let i = pods.length; i < want; i++) {
      if (quotaRefused(c, rs)) break;
      const pod = createPod(c, rs, `${rs.metadata.name}-${c.nameSuffix()}`);
      c.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, 'replicaset-controller');
    }
    if (pods.length > want) {
      const doomed = [...pods]
        .sort((a, b) => Number(podReady(a)) - Number(podReady(b)) || b.metadata.creationTimestamp.localeCompare(a.metadata.creationTimestamp))
        .slice(0, pods.length - want);
      for (const pod of doomed) {
        c.remove(pod);
        c.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`, 'replicaset-controller');
      }
    }
    pods = c.owned(rs, 'Pod');
    const ready = pods.filter(podReady).length;
    c.update(rs, (r) => {
      r.status = {
        replicas: pods.length,
        ...(pods.length ? { fullyLabeledReplicas: pods.length } : {}),
        ...(ready ? { readyReplicas: ready, availableReplicas: ready } : {}),
        observedGeneration: r.metadata.generation,
      };
    });
  }
}

export function collectGarbage(c: KubeCluster): void {
  for (let changed = true; changed;) {
    changed = false;
    for (const o of [...c.objects.values()]) {
      const owner = o.metadata.ownerReferences?.find((r: Obj) => r.controller);
      if (owner && c.isSimulated(o) && !c.uidExists(owner.uid)) {
        c.remove(o);
        changed = true;
      }
    }
  }
}
