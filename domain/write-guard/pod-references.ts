import { asJsonObject, type JsonObject } from '../json-object.js';
import type { FoundPod } from './pod-shapes.js';

const listOf = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(asJsonObject) : []);
const named = (kind: string, name: unknown): string[] => (typeof name === 'string' && name ? [`${kind} ${name}`] : []);

/** What a volume (or a projected volume's source) reads: a Secret, a ConfigMap, a claim, a service account token. */
function volumeReferences(v: JsonObject): string[] {
  return [
    ...named('Secret', asJsonObject(v.secret).secretName ?? asJsonObject(v.secret).name),
    ...named('ConfigMap', asJsonObject(v.configMap).name),
    ...named('PersistentVolumeClaim', asJsonObject(v.persistentVolumeClaim).claimName),
    ...named('Secret', asJsonObject(asJsonObject(v.csi).nodePublishSecretRef).name),
    ...('serviceAccountToken' in v
      ? [`a service account token for audience ${String(asJsonObject(v.serviceAccountToken).audience ?? '(the API server)')}`]
      : []),
    ...listOf(asJsonObject(v.projected).sources).flatMap(volumeReferences),
  ];
}

/**
 * The data a pod reads from elsewhere: each Secret, ConfigMap and claim it
 * names (env `valueFrom`, `envFrom`, volumes, projected volumes, image pull
 * secrets, CSI secrets) and each service account token it asks for, as
 * `Secret db`, `ConfigMap web`, `PersistentVolumeClaim data`. A reference a
 * change adds is a pod reading data it did not read before.
 */
export function podReferences(pod: FoundPod): Set<string> {
  const out = new Set<string>();
  const add = (refs: string[]) => refs.forEach((r) => out.add(r));
  for (const { container } of pod.containers) {
    for (const e of listOf(container.env)) {
      const from = asJsonObject(e.valueFrom);
      add(named('Secret', asJsonObject(from.secretKeyRef).name));
      add(named('ConfigMap', asJsonObject(from.configMapKeyRef).name));
    }
    for (const e of listOf(container.envFrom)) {
      add(named('Secret', asJsonObject(e.secretRef).name));
      add(named('ConfigMap', asJsonObject(e.configMapRef).name));
    }
  }
  for (const v of listOf(pod.spec.volumes)) add(volumeReferences(v));
  for (const s of listOf(pod.spec.imagePullSecrets)) add(named('Secret', s.name));
  return out;
}
