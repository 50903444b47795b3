import { asJsonObject, isJsonObject, type JsonObject } from '../json-object.js';
import type { FoundPod } from './pod-shapes.js';

/** A container as the Pod Security controls read it: a label for messages, its fields and security context. */
export interface Container {
  label: string;
  fields: JsonObject;
  sc: JsonObject;
}

/** A pod as the controls read it: its pod-level fields and security context, its containers, its template's annotations, whether it runs on Windows. */
export interface PodView {
  spec: JsonObject;
  sc: JsonObject;
  containers: Container[];
  annotations: JsonObject;
  windows: boolean;
}

/** A field a control found, with its value. */
export type Found = { field: string; value: unknown };

/** One control of the standard: the level it belongs to, what it allows, and the fields of a pod that break it. */
export interface PodSecurityControl {
  name: string;
  level: 'baseline' | 'restricted';
  /** What the standard allows, in words (docs/safe-writes.md). */
  allows: string;
  check: (pod: PodView) => Found[];
}

export const unset = (v: unknown) => v === undefined || v === null;
export const unsetOr = (v: unknown, ...allowed: unknown[]) => unset(v) || allowed.includes(v);
export const each = (pod: PodView, pick: (c: Container) => Found[]) => pod.containers.flatMap(pick);
/** The pod's and every container's value of a security context field, as `[field, value]`. */
export const contexts = (pod: PodView, path: string[]): Found[] => [
  { field: `securityContext.${path.join('.')}`, value: dig(pod.sc, path) },
  ...each(pod, (c) => [{ field: `${c.label} securityContext.${path.join('.')}`, value: dig(c.sc, path) }]),
];
export const dig = (o: unknown, path: string[]): unknown => path.reduce<unknown>((v, k) => (isJsonObject(v) ? v[k] : undefined), o);
export const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const notAllowed = (found: Found[], ok: (v: unknown) => boolean) => found.filter((f) => !ok(f.value));
export const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'];
export const HOOKS = ['postStart', 'preStop'];

export function capabilitiesAdded(c: Container): Found[] {
  const add = dig(c.sc, ['capabilities', 'add']);
  if (unset(add)) return [];
  const field = `${c.label} securityContext.capabilities.add`;
  return Array.isArray(add) ? add.map((value) => ({ field, value })) : [{ field, value: add }];
}

export function volumes(p: PodView): { name: string; volume: JsonObject }[] {
  return listOf(p.spec.volumes).map((v, i) => {
    const volume = asJsonObject(v);
    return { name: typeof volume.name === 'string' ? volume.name : String(i), volume };
  });
}

const LABELS: Record<string, string> = { initContainers: 'init container', ephemeralContainers: 'ephemeral container', steps: 'step', sidecars: 'sidecar' };

/** The pod as the controls read it. */
export function viewOf(pod: FoundPod): PodView {
  const containers = pod.containers.map(({ list, container }, i) => ({
    label: `${LABELS[list] ?? list.replace(/s$/, '')} ${typeof container.name === 'string' ? container.name : String(i)}`,
    fields: container,
    sc: asJsonObject(container.securityContext),
  }));
  return {
    spec: pod.spec,
    sc: asJsonObject(pod.spec.securityContext),
    containers,
    annotations: pod.annotations,
    windows: asJsonObject(pod.spec.os).name === 'windows',
  };
}
