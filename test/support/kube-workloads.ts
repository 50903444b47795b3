import { mergePatch } from '../fakes/fake-cluster.js';
import type { KubeApiServer, RecordedRequest } from './kube-api-server.js';
import { rolledOut } from './operate-fixtures.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface WorkloadOptions {
  /** Milliseconds after a write before the simulated Deployment controller acts; default 150. */
  settleMs?: number;
  /** `complete`: the rollout finishes; `stall`: it passes its progress deadline with the old replicas. */
  rollout?: 'complete' | 'stall';
}

const status = (code: number, reason: string, message: string, causes?: Obj[]) => ({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...(causes ? { details: { causes } } : {}),
});

/**
 * Until the behaving stand-in lands on main (branch `kube`): JSON merge
 * patch (RFC 7386, with dryRun=All storing nothing and the stand-in's 422 for
 * negative replicas) through the stand-in's `intercept` hook, and a
 * Deployment controller that writes the rollout's status some milliseconds
 * after each persisted write. Returns the stop function (clears the hook and pending timers).
 */
export function simulateWorkloads(kube: KubeApiServer, options: WorkloadOptions = {}): () => void {
  const timers = new Set<NodeJS.Timeout>();
  const control = (path: string) => {
    const t = setTimeout(() => {
      timers.delete(t);
      const o = kube.objects.get(path);
      if (!o || o.kind !== 'Deployment') return;
      const generation = o.metadata.generation;
      const replicas = o.spec?.replicas ?? 1;
      const old = o.status?.replicas ?? replicas;
      o.status =
        options.rollout === 'stall'
          ? { ...rolledOut(old, generation), updatedReplicas: 0, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${o.metadata.name}-2" has timed out progressing.` }] }
          : rolledOut(replicas, generation);
    }, options.settleMs ?? 150);
    timers.add(t);
  };
  const previous = kube.intercept;
  kube.intercept = (r: RecordedRequest) => {
    if (r.method !== 'PATCH') return undefined;
    const dry = r.query.get('dryRun') === 'All';
    if (r.contentType !== 'application/merge-patch+json') {
      if (!dry && r.path.includes('/deployments/')) control(r.path); // after the stand-in stores the apply
      return undefined;
    }
    const existing = kube.objects.get(r.path);
    const name = r.path.split('/').at(-1);
    if (!existing) return { status: 404, body: status(404, 'NotFound', `deployments.apps "${name}" not found`) };
    const merged = mergePatch(JSON.parse(JSON.stringify(existing)), JSON.parse(r.body ?? '{}')) as Obj;
    const replicas = merged.spec?.replicas;
    if (typeof replicas === 'number' && replicas < 0) {
      return { status: 422, body: status(422, 'Invalid', `${existing.kind}.apps "${name}" is invalid: spec.replicas: Invalid value: ${replicas}: must be greater than or equal to 0`, [{ reason: 'FieldValueInvalid', message: `Invalid value: ${replicas}: must be greater than or equal to 0`, field: 'spec.replicas' }]) };
    }
    const specChanged = JSON.stringify(merged.spec) !== JSON.stringify(existing.spec);
    const generation = (existing.metadata.generation ?? 1) + (specChanged ? 1 : 0);
    const next = { ...merged, metadata: { ...merged.metadata, generation, resourceVersion: String(Number(existing.metadata.resourceVersion ?? 0) + 1) } };
    if (!dry) {
      kube.objects.set(r.path, next);
      control(r.path);
    }
    return { status: 200, body: next };
  };
  return () => {
    kube.intercept = previous;
    for (const t of timers) clearTimeout(t);
  };
}
