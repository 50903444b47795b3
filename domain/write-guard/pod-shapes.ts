import { asJsonObject, isJsonObject, type JsonObject } from '../json-object.js';
import type { PathSegment } from '../operations/object-diff.js';
import { itemSegments, pathKey } from './leaf-changes.js';

/** A container found by shape: where, the list (or key) it came from, and its fields. */
export interface FoundContainer {
  segments: PathSegment[];
  /** `containers`, `initContainers`, `ephemeralContainers`, `steps`, `sidecars`, `container`, `script`, `stepTemplate`, or `container` for a bare container-shaped object. */
  list: string;
  container: JsonObject;
}

/**
 * A pod found by shape, in any kind and at any depth: the containers it
 * runs, and the pod-level fields that apply to them (`spec`: the pod spec
 * itself for a `containers` list; for a container elsewhere, the pod-level
 * fields of the objects around it and of a `podTemplate` beside them,
 * nearest first), with the annotations of its template.
 */
export interface FoundPod {
  /** The object holding the containers (a pod spec), or the parent of a single container. */
  segments: PathSegment[];
  spec: JsonObject;
  containers: FoundContainer[];
  annotations: JsonObject;
  /** Whether `segments` is a pod spec (a `containers` list's holder), whose fields are pod fields. */
  podSpec: boolean;
  /**
   * A `securityContext` outside any pod or container found (a custom
   * resource's `spec.runner.securityContext`): what a controller may copy
   * into the pods it makes. Judged by the baseline only: what it introduces.
   */
  loose?: true;
}

/** Where pod rules judge a leaf instead of the kind's rules: a pod spec, a container, a pod template's labels and annotations, a `podTemplate`. */
export interface PodRegion {
  segments: PathSegment[];
  /** pathKey of segments. */
  key: string;
  scope: 'pod' | 'container' | 'pod-metadata';
}

const POD_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];
const STEP_LISTS = ['steps', 'sidecars'];
const SINGLE = ['container', 'script', 'stepTemplate', 'sidecar'];
const RUNS = ['command', 'args', 'securityContext', 'env', 'script', 'source'];
/** Pod-level fields a container elsewhere takes from the objects around it (the ones the Pod Security Standards read). */
export const POD_LEVEL_KEYS = ['hostNetwork', 'hostPID', 'hostIPC', 'hostUsers', 'securityContext', 'volumes', 'os'];
const MAX_DEPTH = 16;

const keyIs = (s: PathSegment | undefined, key: string) => s !== undefined && 'key' in s && s.key === key;
const isList = (v: unknown, needImage: boolean): v is JsonObject[] =>
  Array.isArray(v) && v.length > 0 && v.every((c) => isJsonObject(c) && (typeof c.image === 'string' || (!needImage && typeof c.name === 'string')));
/** An object that runs something: an image and a command, arguments, environment, security context or script. */
const runsImage = (v: JsonObject) => typeof v.image === 'string' && RUNS.some((k) => k in v);

/**
 * Every pod in an object, found by shape, whatever the kind (status left
 * out): a `containers`, `initContainers` or `ephemeralContainers` list
 * (Pods, workloads, Argo Rollouts, Knative Services, any custom resource);
 * `steps` and `sidecars` lists of images (Tekton); a single `container`,
 * `script`, `stepTemplate` or `sidecar` (Argo Workflows, Tekton); any
 * object with an image and a command, args, env or security context. Bounded depth.
 */
export function findPods(object: unknown): FoundPod[] {
  const out: FoundPod[] = [];
  const walk = (v: unknown, at: PathSegment[], up: JsonObject[], depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(v)) {
      const steps = itemSegments(v);
      return v.forEach((x, i) => walk(x, [...at, steps[i]!], up, depth + 1));
    }
    if (!isJsonObject(v)) return;
    const lists = [...POD_LISTS.filter((k) => isList(v[k], false)), ...STEP_LISTS.filter((k) => isList(v[k], true))];
    const singles = SINGLE.filter((k) => isJsonObject(v[k]) && (k === 'stepTemplate' || typeof asJsonObject(v[k]).image === 'string'));
    // a `podTemplate` (Tekton) is the pod-level half of a pod: judged as one even where its containers are elsewhere
    const template = at.length > 0 && keyIs(at.at(-1), 'podTemplate');
    const holder = template || lists.some((k) => POD_LISTS.includes(k));
    const containers: FoundContainer[] = [];
    for (const list of lists) {
      const items = v[list] as JsonObject[];
      const steps = itemSegments(items);
      items.forEach((c, i) => containers.push({ segments: [...at, { key: list }, steps[i]!], list, container: c }));
    }
    for (const key of singles) containers.push({ segments: [...at, { key }], list: key, container: v[key] as JsonObject });
    // an object that is itself a container: its pod is its parent, its pod-level fields those around it
    const own = !containers.length && at.length > 0 && runsImage(v);
    if (own) containers.push({ segments: at, list: 'container', container: v });
    const loose = !containers.length && !template && at.length > 0 && isJsonObject(v.securityContext);
    if (loose)
      out.push({
        segments: at,
        spec: podLevel([...up, v]),
        containers: [{ segments: at, list: 'container', container: v }],
        annotations: {},
        podSpec: false,
        loose,
      });
    if (containers.length || template) {
      const around = own ? up : [...up, v];
      out.push({
        segments: own ? at.slice(0, -1) : at,
        spec: holder ? v : podLevel(around),
        containers,
        annotations: annotationsOf(up, at, holder),
        podSpec: holder,
      });
    }
    if (own) return;
    const skip = new Set([...lists, ...singles]);
    for (const [k, x] of Object.entries(v)) if (!(depth === 0 && k === 'status') && !skip.has(k)) walk(x, [...at, { key: k }], [...up, v], depth + 1);
  };
  walk(object, [], [], 0);
  return out;
}

/** The pod-level fields of the objects around a container, and of a `podTemplate` among them, the nearest first. */
function podLevel(around: JsonObject[]): JsonObject {
  const spec: JsonObject = {};
  const volumes: unknown[] = [];
  for (const o of [...around].reverse()) {
    for (const src of [o, asJsonObject(o.podTemplate)]) {
      for (const k of POD_LEVEL_KEYS) {
        if (!(k in src)) continue;
        if (k === 'volumes' && Array.isArray(src.volumes)) volumes.push(...src.volumes);
        else if (!(k in spec)) spec[k] = src[k];
      }
    }
  }
  return volumes.length ? { ...spec, volumes } : spec;
}

/** A pod spec's template annotations: the `metadata` beside the `spec` that holds it (a Pod's own, a Deployment's template's). */
function annotationsOf(up: JsonObject[], at: PathSegment[], holder: boolean): JsonObject {
  const last = at.at(-1);
  if (!holder || !last || !('key' in last) || last.key !== 'spec') return {};
  return asJsonObject(asJsonObject(up.at(-1)?.metadata).annotations);
}

const region = (segments: PathSegment[], scope: PodRegion['scope']): PodRegion => ({ segments, key: pathKey(segments), scope });

/** Where pod rules apply in an object: each found pod's spec (a `containers` holder or a `podTemplate`), each container, each template's labels and annotations. */
export function podRegions(object: unknown): PodRegion[] {
  const out: PodRegion[] = [];
  for (const pod of findPods(object).filter((p) => !p.loose)) {
    if (pod.podSpec) {
      out.push(region(pod.segments, 'pod'));
      const last = pod.segments.at(-1);
      if (last && 'key' in last && last.key === 'spec')
        for (const key of ['labels', 'annotations']) out.push(region([...pod.segments.slice(0, -1), { key: 'metadata' }, { key }], 'pod-metadata'));
    }
    for (const c of pod.containers) out.push(region(c.segments, 'container'));
  }
  return out;
}

/** An image reference's registry, as a container runtime reads it: the first component when it has a dot or a port or is localhost, else docker.io. */
export function imageRegistry(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  return /[.:]/.test(first) || first === 'localhost' ? first.toLowerCase() : 'docker.io';
}
