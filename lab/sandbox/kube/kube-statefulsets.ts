/**
 * The simulated StatefulSet controller of the Kubernetes API stand-in.
 *
 * A StatefulSet (with containers in its template) owns pods `<name>-0` ..
 * `<name>-<replicas-1>` with labels `statefulset.kubernetes.io/pod-name`,
 * `apps.kubernetes.io/pod-index` and `controller-revision-hash`, and one
 * PersistentVolumeClaim per `volumeClaimTemplates` entry and ordinal
 * (`<claim>-<name>-<i>`, Bound, kept when the set is deleted, as the default
 * retention policy does). `OrderedReady` (the default) creates the next pod only
 * once the previous ones are Ready, one per reconcile; `Parallel` creates them
 * all. Scaling down removes the highest ordinals. A template change replaces
 * pods from the highest ordinal down, one per tick, each only while all others
 * are Ready. Status: observedGeneration, replicas, readyReplicas,
 * availableReplicas, currentReplicas, updatedReplicas, currentRevision,
 * updateRevision.
 */
import { safeHash, type KubeCluster, type Obj } from './kube-cluster.js';
import { podReady } from './kube-pods.js';
import { createPod } from './kube-replicasets.js';
import { claimClass, provisioningFailure } from './kube-claims.js';

const REVISION_LABEL = 'controller-revision-hash';

export function reconcileStatefulSets(c: KubeCluster, rolloutStep = false): void {
  for (const sts of c.all('StatefulSet')) {
    if (!sts.spec?.template?.spec?.containers?.length) continue;
    const name = sts.metadata.name;
    const revision = `${name}-${safeHash(sts.spec.template)}`;
    const want = sts.spec.replicas ?? 1;
    const ordinal = (p: Obj) => Number(p.metadata.name.slice(name.length + 1));
    const pods = () => c.owned(sts, 'Pod').sort((a, b) => ordinal(a) - ordinal(b));
    for (const p of pods()) if (ordinal(p) >= want) c.remove(p);
    for (let i = 0; i < want; i++) {
      const existing = pods();
      if (existing.some((p) => ordinal(p) === i)) continue;
      if (sts.spec.podManagementPolicy !== 'Parallel' && !existing.filter((p) => ordinal(p) < i).every(podReady)) break;
      for (const claim of sts.spec.volumeClaimTemplates ?? []) ensureClaim(c, sts, claim, i);
      const pod = createPod(c, sts, `${name}-${i}`, {
        'statefulset.kubernetes.io/pod-name': `${name}-${i}`,
        'apps.kubernetes.io/pod-index': String(i),
        [REVISION_LABEL]: revision,
      });
      c.update(pod, (p) => Object.assign(p.spec, { hostname: `${name}-${i}`, ...(sts.spec.serviceName ? { subdomain: sts.spec.serviceName } : {}) }));
      c.event(sts, 'Normal', 'SuccessfulCreate', `create Pod ${name}-${i} in StatefulSet ${name} successful`, 'statefulset-controller');
      if (sts.spec.podManagementPolicy !== 'Parallel') break;
    }
    const current = pods();
    if (rolloutStep && current.length === want && current.every(podReady)) {
      const stale = [...current].reverse().find((p) => p.metadata.labels?.[REVISION_LABEL] !== revision);
      if (stale) {
        c.remove(stale);
        c.event(sts, 'Normal', 'SuccessfulDelete', `delete Pod ${stale.metadata.name} in StatefulSet ${name} successful`, 'statefulset-controller');
      }
    }
    const now = pods();
    const ready = now.filter(podReady).length;
    const updated = now.filter((p) => p.metadata.labels?.[REVISION_LABEL] === revision).length;
    const currentRevision = updated === now.length ? revision : (sts.status?.currentRevision ?? revision);
    c.update(sts, (s) => {
      s.status = {
        observedGeneration: s.metadata.generation,
        replicas: now.length,
        ...(ready ? { readyReplicas: ready, availableReplicas: ready } : {}),
        currentReplicas: now.length - (currentRevision === revision ? 0 : updated),
        updatedReplicas: updated,
        currentRevision,
        updateRevision: revision,
        collisionCount: 0,
      };
    });
  }
}

function ensureClaim(c: KubeCluster, sts: Obj, claim: Obj, i: number): void {
  const name = `${claim.metadata.name}-${sts.metadata.name}-${i}`;
  if (c.objects.has(c.pathOf('v1', 'PersistentVolumeClaim', name, sts.metadata.namespace))) return;
  const pvc = c.insert({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: sts.metadata.namespace, labels: { ...sts.spec.selector?.matchLabels } },
    spec: structuredClone(claim.spec ?? {}),
  });
  bindClaim(c, pvc);
}

/** What the provisioner of a claim's StorageClass does to it: a volume, Bound; a class that does not exist leaves it Pending (kube-claims.ts). */
export function bindClaim(c: KubeCluster, pvc: Obj): void {
  const storageClassName = claimClass(c, pvc);
  if (storageClassName === undefined) {
    if (pvc.status?.phase !== 'Pending') c.update(pvc, (p) => (p.status = { phase: 'Pending' }));
    return c.event(pvc, 'Warning', 'ProvisioningFailed', provisioningFailure(pvc), 'persistentvolume-controller');
  }
  c.update(pvc, (p) => {
    p.spec = { storageClassName, volumeMode: 'Filesystem', ...p.spec, volumeName: p.spec?.volumeName ?? `pvc-${p.metadata.uid}` };
    p.status = { phase: 'Bound', accessModes: p.spec.accessModes ?? ['ReadWriteOnce'], capacity: { storage: p.spec.resources?.requests?.storage ?? '1Gi' } };
  });
}
