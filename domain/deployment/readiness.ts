import type { KubeObject } from '../cluster/kube-types.js';

export interface Readiness {
  ready: boolean;
  /** Why it is (not) ready, in words. */
  reason: string;
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const condition = (o: Obj, type: string) => (Array.isArray(o.status?.conditions) ? o.status.conditions.find((c: Obj) => c?.type === type) : undefined);

/**
 * Whether an applied object is ready, as `kubectl rollout status` and
 * `kubectl wait` judge it: workloads by their replica counts for the current
 * generation, claims by phase, objects with a `Ready` condition by it, and
 * everything else (Service, ConfigMap, CronJob...) by existing.
 */
export function readiness(object: KubeObject | null): Readiness {
  if (!object) return { ready: false, reason: 'not found' };
  const o = object as Obj;
  const status: Obj = o.status ?? {};
  const generation = o.metadata?.generation;
  const observed = status.observedGeneration === undefined || generation === undefined || status.observedGeneration >= generation;
  switch (o.kind) {
    case 'Deployment':
    case 'StatefulSet': {
      const want = typeof o.spec?.replicas === 'number' ? o.spec.replicas : 1;
      const ready = o.kind === 'Deployment' ? (status.availableReplicas ?? 0) : (status.readyReplicas ?? 0);
      const updated = status.updatedReplicas ?? (o.kind === 'StatefulSet' ? ready : 0);
      if (!observed) return { ready: false, reason: 'the controller has not seen the latest spec yet' };
      if (updated < want || ready < want)
        return { ready: false, reason: `${ready} of ${want} replicas ${o.kind === 'Deployment' ? 'available' : 'ready'}, ${updated} updated` };
      return { ready: true, reason: `${ready} of ${want} replicas ready` };
    }
    case 'PersistentVolumeClaim':
      return status.phase === 'Bound' ? { ready: true, reason: 'Bound' } : { ready: false, reason: `phase ${status.phase ?? 'Pending'}` };
    case 'Pod': {
      const c = condition(o, 'Ready');
      return c?.status === 'True' ? { ready: true, reason: 'Ready' } : { ready: false, reason: `phase ${status.phase ?? 'Pending'}` };
    }
    default: {
      const c = condition(o, 'Ready');
      if (c)
        return c.status === 'True' ? { ready: true, reason: 'Ready' } : { ready: false, reason: `Ready is ${c.status}${c.reason ? ` (${c.reason})` : ''}` };
      return { ready: true, reason: 'exists' };
    }
  }
}
