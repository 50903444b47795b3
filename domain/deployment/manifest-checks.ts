import { z } from 'zod';
import type { ApiResourceInfo, KubeObject } from '../cluster/kube-types.js';
import { validateManifest } from '../cluster/kube-validation.js';
import { DomainError } from '../errors.js';

/** Bounds on what the model may hand back: objects in one solution, bytes per object and in all. */
export const MANIFEST_LIMITS = { objects: 20, objectBytes: 64 * 1024, totalBytes: 256 * 1024 } as const;

/** The model's answer: JSON objects only (never YAML text), checked loosely here and strictly below. */
export const generatedManifestsSchema = z.object({
  manifests: z
    .array(
      z.looseObject({
        apiVersion: z.string().min(1).max(253),
        kind: z.string().min(1).max(63),
        metadata: z.looseObject({ name: z.string().min(1).max(253), namespace: z.string().max(63).optional() }),
      }),
    )
    .min(1)
    .max(MANIFEST_LIMITS.objects)
    .describe('Every Kubernetes object of the solution, as JSON objects'),
});
export type GeneratedManifests = z.infer<typeof generatedManifestsSchema>;

export const objectName = (o: { kind: string; metadata: { name: string; namespace?: string } }) =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/**
 * Makes the model's objects safe to send: bounded in size, well-formed,
 * each kind one the cluster serves (namespace set from the answer for a
 * namespaced kind, removed for a cluster-scoped one). Problems are words the
 * model can act on; objects with a problem are left out.
 */
export function checkGeneratedObjects(
  raw: KubeObject[],
  served: readonly ApiResourceInfo[],
  namespace: string | undefined,
): { objects: KubeObject[]; problems: string[] } {
  const problems: string[] = [];
  const objects: KubeObject[] = [];
  let total = 0;
  const seen = new Set<string>();
  for (const [i, o] of raw.entries()) {
    const size = new TextEncoder().encode(JSON.stringify(o)).length;
    total += size;
    const label = `manifests[${i}] (${o.kind} ${o.metadata?.name})`;
    if (size > MANIFEST_LIMITS.objectBytes) {
      problems.push(`${label}: ${size} bytes, more than the ${MANIFEST_LIMITS.objectBytes} allowed per object`);
      continue;
    }
    const info = served.find((r) => r.apiVersion === o.apiVersion && r.kind === o.kind);
    if (!info) {
      const other = served.find((r) => r.kind === o.kind);
      problems.push(
        `${label}: the cluster does not serve ${o.kind} in ${o.apiVersion}${other ? `; it serves it as ${other.apiVersion}` : '; use only the kinds of the solution'}`,
      );
      continue;
    }
    const object = JSON.parse(JSON.stringify(o)) as KubeObject;
    if (info.namespaced) object.metadata.namespace = namespace ?? object.metadata.namespace ?? 'default';
    else delete object.metadata.namespace;
    try {
      validateManifest(object);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      problems.push(`${label}: ${e.message}`);
      continue;
    }
    const key = `${object.apiVersion}/${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
    if (seen.has(key)) {
      problems.push(`${label}: ${objectName(object)} appears twice`);
      continue;
    }
    seen.add(key);
    objects.push(object);
  }
  if (total > MANIFEST_LIMITS.totalBytes) problems.push(`the manifests are ${total} bytes, more than the ${MANIFEST_LIMITS.totalBytes} allowed in all`);
  return { objects, problems };
}

/** Apply order: what others depend on first (namespaces, config, storage, services), workloads last. */
export function applyOrder(objects: KubeObject[]): KubeObject[] {
  const rank = ['Namespace', 'ServiceAccount', 'ConfigMap', 'Secret', 'PersistentVolumeClaim', 'Service'];
  const r = (o: KubeObject) => (rank.includes(o.kind) ? rank.indexOf(o.kind) : rank.length);
  return [...objects].sort((a, b) => r(a) - r(b));
}
