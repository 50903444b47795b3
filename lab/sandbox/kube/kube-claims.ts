/**
 * The claims of the Kubernetes API stand-in, as the persistent volume
 * controller and a dynamic provisioner treat them: a claim binds when the
 * StorageClass it asks for exists (its own `storageClassName`, else the
 * cluster's default class). A cluster without any StorageClass object has the
 * sandbox's implicit default, `standard`. A claim whose class does not exist
 * stays Pending (Warning `ProvisioningFailed`, as the controller reports it)
 * and binds once the class appears. An empty `storageClassName` asks for a
 * pre-provisioned volume, which the stand-in does not model: it stays Pending.
 */
import type { KubeCluster, Obj } from './kube-cluster.js';

const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

/** The StorageClass a claim is provisioned from; undefined when that class does not exist. */
export function claimClass(c: KubeCluster, pvc: Obj): string | undefined {
  const wanted: unknown = pvc.spec?.storageClassName;
  const classes = [...c.objects.values()].filter((o) => o.kind === 'StorageClass');
  if (!classes.length) return wanted === undefined || wanted === 'standard' ? 'standard' : undefined;
  if (wanted === undefined) return classes.find((s) => s.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true')?.metadata.name;
  return classes.some((s) => s.metadata.name === wanted) ? (wanted as string) : undefined;
}

/** Whether a claim is bound, or binds at the controller's next pass (its class exists); a Lost claim never does. */
export function claimBinds(c: KubeCluster, pvc: Obj): boolean {
  const phase: unknown = pvc.status?.phase;
  return phase === 'Bound' || (phase !== 'Lost' && claimClass(c, pvc) !== undefined);
}

/** Why a claim waits, in the persistent volume controller's words. */
export const provisioningFailure = (pvc: Obj) =>
  pvc.spec?.storageClassName === ''
    ? 'no persistent volumes available for this claim and no storage class is set'
    : `storageclass.storage.k8s.io "${pvc.spec?.storageClassName ?? ''}" not found`;
