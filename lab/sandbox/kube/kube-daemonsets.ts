/**
 * The simulated DaemonSet controller of the Kubernetes API stand-in.
 *
 * A DaemonSet (with containers in its template) runs one pod `<ds>-<5 chars>`
 * on every Node it fits (the Node objects of the cluster; `kind-worker` when
 * there are none): the node's labels match the template's `nodeSelector`, and
 * each `NoSchedule`/`NoExecute` taint of the node is tolerated (a cordoned node
 * still gets its pod, as the real controller adds that toleration). The pod
 * is bound to its node (`spec.nodeName`) and labelled
 * `controller-revision-hash`. A pod on a node it no longer fits is deleted. A
 * template change replaces pods (RollingUpdate, maxUnavailable 1): old pods
 * that are not ready go at once, a ready one only while every other pod is
 * ready; `OnDelete` replaces none. Status: desiredNumberScheduled,
 * currentNumberScheduled, numberMisscheduled, numberReady, numberAvailable,
 * numberUnavailable, updatedNumberScheduled, observedGeneration.
 */
import { safeHash, type KubeCluster } from './kube-cluster.js';
import { podReady } from './kube-pods.js';
import { nodesFitting } from './kube-scheduler.js';
import { createPod } from './kube-replicasets.js';

const REVISION_LABEL = 'controller-revision-hash';
export function reconcileDaemonSets(c: KubeCluster, rolloutStep = false): void {
  for (const ds of c.all('DaemonSet')) {
    if (!ds.spec?.template?.spec?.containers?.length) continue;
    const name = ds.metadata.name;
    const revision = safeHash(ds.spec.template);
    const nodes = nodesFitting(c, ds.spec.template.spec ?? {}, { daemon: true });
    const pods = () => c.owned(ds, 'Pod');
    for (const p of pods()) if (!nodes.includes(p.spec?.nodeName)) c.remove(p);
    if (rolloutStep && ds.spec.updateStrategy?.type !== 'OnDelete') {
      const stale = pods().filter((p) => p.metadata.labels?.[REVISION_LABEL] !== revision);
      const unready = stale.filter((p) => !podReady(p));
      for (const p of unready) c.remove(p);
      const others = pods();
      if (!unready.length && stale.length && others.length === nodes.length && others.every(podReady)) c.remove(stale[0]);
    }
    for (const node of nodes) {
      if (pods().some((p) => p.spec?.nodeName === node)) continue;
      const pod = createPod(
        c,
        ds,
        `${name}-${c.nameSuffix()}`,
        { [REVISION_LABEL]: revision, 'pod-template-generation': String(ds.metadata.generation ?? 1) },
        { nodeName: node },
      );
      c.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, 'daemonset-controller');
    }
    const now = pods();
    const ready = now.filter(podReady).length;
    const updated = now.filter((p) => p.metadata.labels?.[REVISION_LABEL] === revision).length;
    c.update(ds, (d) => {
      d.status = {
        currentNumberScheduled: now.length,
        desiredNumberScheduled: nodes.length,
        numberMisscheduled: 0,
        numberReady: ready,
        observedGeneration: d.metadata.generation,
        updatedNumberScheduled: updated,
        ...(ready ? { numberAvailable: ready } : {}),
        ...(nodes.length - ready > 0 ? { numberUnavailable: nodes.length - ready } : {}),
      };
    });
  }
}
