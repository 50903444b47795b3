import type { KubeObject } from './kube-types.js';
import { asJsonObject } from '../json-object.js';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export interface RolloutStatus {
  /** The controller has seen the latest spec and every replica is updated and available (ready for a StatefulSet). */
  done: boolean;
  /** The controller gave up (a Deployment past its progress deadline): waiting longer will not help. */
  failed: boolean;
  /** Words for a person, like `kubectl rollout status`. */
  message: string;
}

/**
 * Where the rollout of a Deployment, StatefulSet or DaemonSet stands, read
 * from its status the way `kubectl rollout status` reads it. Any other kind
 * has no rollout: it is done as soon as it is stored.
 */
export function rolloutStatus(o: KubeObject): RolloutStatus {
  if (o.kind === 'DaemonSet') return daemonSetStatus(o);
  if (o.kind !== 'Deployment' && o.kind !== 'StatefulSet') return { done: true, failed: false, message: 'no rollout for this kind' };
  const spec = asJsonObject(o.spec);
  const status = asJsonObject(o.status);
  const desired = num(spec.replicas) ?? 1;
  const generation = num(o.metadata.generation);
  const observed = num(status.observedGeneration);
  if (generation !== undefined && (observed === undefined || observed < generation)) {
    return { done: false, failed: false, message: 'waiting for the controller to observe the new spec' };
  }
  const progressing = (Array.isArray(status.conditions) ? status.conditions : []).map(asJsonObject).find((c) => c.type === 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return {
      done: false,
      failed: true,
      message: `rollout failed: ${typeof progressing.message === 'string' ? progressing.message : 'progress deadline exceeded'}`,
    };
  }
  const updated = num(status.updatedReplicas) ?? 0;
  const total = num(status.replicas) ?? updated;
  const ready = o.kind === 'Deployment' ? (num(status.availableReplicas) ?? 0) : (num(status.readyReplicas) ?? 0);
  const word = o.kind === 'Deployment' ? 'available' : 'ready';
  if (updated < desired) return { done: false, failed: false, message: `${updated} of ${desired} new replicas updated` };
  if (total > updated) return { done: false, failed: false, message: `${total - updated} old replicas pending termination` };
  if (ready < desired) return { done: false, failed: false, message: `${ready} of ${desired} updated replicas ${word}` };
  if (
    o.kind === 'StatefulSet' &&
    typeof status.updateRevision === 'string' &&
    status.currentRevision !== undefined &&
    status.currentRevision !== status.updateRevision
  ) {
    return { done: false, failed: false, message: 'waiting for the partitioned rollout to finish' };
  }
  return { done: true, failed: false, message: `successfully rolled out (${desired} of ${desired} replicas ${word})` };
}

/** kubectl's DaemonSetStatusViewer: every scheduled node runs an updated, available pod. */
function daemonSetStatus(o: KubeObject): RolloutStatus {
  const spec = asJsonObject(o.spec);
  const status = asJsonObject(o.status);
  if (asJsonObject(spec.updateStrategy).type === 'OnDelete')
    return { done: true, failed: false, message: 'no automatic rollout (updateStrategy OnDelete: pods change when they are deleted)' };
  const generation = num(o.metadata.generation);
  const observed = num(status.observedGeneration);
  if (generation !== undefined && (observed === undefined || observed < generation)) {
    return { done: false, failed: false, message: 'waiting for the controller to observe the new spec' };
  }
  const desired = num(status.desiredNumberScheduled) ?? 0;
  const updated = num(status.updatedNumberScheduled) ?? 0;
  const available = num(status.numberAvailable) ?? 0;
  if (updated < desired) return { done: false, failed: false, message: `${updated} of ${desired} new pods updated` };
  if (available < desired) return { done: false, failed: false, message: `${available} of ${desired} updated pods available` };
  return { done: true, failed: false, message: `successfully rolled out (${desired} of ${desired} pods available)` };
}
