/**
 * The simulated disruption controller of the Kubernetes API stand-in: the
 * status of every simulated PodDisruptionBudget, as kube-controller-manager
 * computes it from the pods its selector matches. `minAvailable` or
 * `maxUnavailable`, each a number or a percentage (of the matching pods,
 * rounded up): expectedPods, currentHealthy (ready pods), desiredHealthy,
 * disruptionsAllowed (never below 0), condition DisruptionAllowed
 * (SufficientPods / InsufficientPods). An eviction (a node drain) is refused
 * while disruptionsAllowed is 0.
 */
import type { KubeCluster, Obj } from './kube-cluster.js';
import { podReady } from './kube-pods.js';

function resolve(v: unknown, total: number): number {
  if (typeof v === 'string' && v.endsWith('%')) return Math.ceil((Number(v.slice(0, -1)) / 100) * total);
  return Number(v ?? 0);
}

export function reconcilePdbs(c: KubeCluster): void {
  for (const pdb of c.all('PodDisruptionBudget')) {
    const selector = Object.entries((pdb.spec?.selector?.matchLabels ?? {}) as Record<string, string>);
    const pods = [...c.objects.values()].filter(
      (p) =>
        p.kind === 'Pod' &&
        p.metadata.namespace === pdb.metadata.namespace &&
        !p.metadata.deletionTimestamp &&
        p.status?.phase !== 'Succeeded' &&
        p.status?.phase !== 'Failed' &&
        selector.length > 0 &&
        selector.every(([k, v]) => p.metadata.labels?.[k] === v),
    );
    const expected = pods.length;
    const healthy = pods.filter(podReady).length;
    const desired =
      pdb.spec?.maxUnavailable !== undefined
        ? Math.max(0, expected - resolve(pdb.spec.maxUnavailable, expected))
        : resolve(pdb.spec?.minAvailable ?? 1, expected);
    const allowed = Math.max(0, healthy - desired);
    c.update(pdb, (p: Obj) => {
      const prev = (p.status?.conditions ?? []).find((x: Obj) => x.type === 'DisruptionAllowed');
      const status = allowed > 0 ? 'True' : 'False';
      p.status = {
        observedGeneration: p.metadata.generation,
        expectedPods: expected,
        currentHealthy: healthy,
        desiredHealthy: desired,
        disruptionsAllowed: allowed,
        conditions: [
          {
            type: 'DisruptionAllowed',
            status,
            reason: allowed > 0 ? 'SufficientPods' : 'InsufficientPods',
            message: '',
            observedGeneration: p.metadata.generation,
            lastTransitionTime: prev?.status === status ? prev.lastTransitionTime : c.now(),
          },
        ],
      };
    });
  }
}
