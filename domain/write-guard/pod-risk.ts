import type { KubeObject } from '../cluster/kube-types.js';
import { asJsonObject } from '../json-object.js';
import { formatPath, type PathSegment } from '../operations/object-diff.js';
import type { RiskFindings } from './field-risk.js';
import { pathKey, under, type LeafChange } from './leaf-changes.js';
import { podReferences } from './pod-references.js';
import { enforcedLevel, podSecurityViolations, violates, type PodSecurityLevel, type PodSecurityViolation } from './pod-security.js';
import { findPods, imageRegistry, type FoundPod } from './pod-shapes.js';

/** What the pod checks need besides the objects. */
export interface PodCheckSettings {
  imageRegistries: readonly string[];
  podSecurityLevel: PodSecurityLevel;
  namespaceLabels?: Readonly<Record<string, string>>;
}

const keyOf = (segments: readonly PathSegment[]) => JSON.stringify(segments);
/** A pod spec's template (the object holding its `spec`), else the pod itself: any leaf below it changes the pod. */
const rootOf = (pod: FoundPod): PathSegment[] => {
  const last = pod.segments.at(-1);
  return pod.podSpec && last && 'key' in last && last.key === 'spec' ? pod.segments.slice(0, -1) : pod.segments;
};
const whereOf = (pod: FoundPod) => `the pod ${pod.podSpec ? 'spec ' : ''}at ${formatPath(pod.segments)}`;
const violationKey = (pod: FoundPod, v: PodSecurityViolation) => `${keyOf(pod.segments)}|${v.control}|${v.field}|${v.value}`;
const shown = (v: PodSecurityViolation) => `${v.field}: ${v.value} breaks the ${v.level} Pod Security Standard (${v.control})`;
/** The images a pod pulls, by where: each container's (`containers/web`), each image volume's (`volume/tools`). */
function pulled(pod: FoundPod): Map<string, string> {
  const out = new Map<string, string>();
  for (const { list, container } of pod.containers)
    if (typeof container.image === 'string' && container.image) out.set(`${list}/${String(container.name)}`, container.image);
  for (const v of Array.isArray(pod.spec.volumes) ? pod.spec.volumes.map(asJsonObject) : []) {
    const reference = asJsonObject(v.image).reference;
    if (typeof reference === 'string' && reference) out.set(`volume/${String(v.name)}`, reference);
  }
  return out;
}
const imagesOf = (pods: FoundPod[]) => pods.flatMap((p) => [...pulled(p).values()]);

/**
 * What the pods of the object as the API server would store it do (pods
 * found by shape in any kind, pod-shapes.ts), against the live object's:
 * - high: a Pod Security Standards violation the change introduces at the
 *   baseline level, or any violation of the level the namespace enforces
 *   (its `pod-security.kubernetes.io/enforce` label, else
 *   SVC_POD_SECURITY_LEVEL) in a pod the change touches; a Secret,
 *   ConfigMap, claim or service account token the pod did not read before;
 *   an image from a registry neither the live object nor
 *   SVC_IMAGE_REGISTRIES uses (a container's, or an image volume's);
 * - medium: every pod the change touches (its pods are replaced or start),
 *   a new image from a known registry.
 */
export function podFindings(live: KubeObject | null, result: KubeObject, leaves: readonly LeafChange[], settings: PodCheckSettings): RiskFindings {
  const high: string[] = [];
  const medium: string[] = [];
  const level = enforcedLevel(settings.namespaceLabels, settings.podSecurityLevel);
  const livePods = findPods(live ?? {});
  const before = new Map(livePods.map((p) => [keyOf(p.segments), p]));
  const existing = new Set(livePods.flatMap((p) => podSecurityViolations(p).map((v) => violationKey(p, v))));
  const known = new Set([...imagesOf(livePods).map(imageRegistry), ...settings.imageRegistries]);
  for (const pod of findPods(result)) {
    const was = before.get(keyOf(pod.segments));
    const where = whereOf(pod);
    const root = pathKey(rootOf(pod));
    const changed = leaves.some((l) => under(l.key, root));
    if (pod.loose) {
      for (const v of podSecurityViolations(pod))
        if (v.level === 'baseline' && !existing.has(violationKey(pod, v)))
          high.push(`the security context at ${formatPath(pod.segments)}: ${shown(v)}, new in this change`);
      continue;
    }
    if (changed) medium.push(was ? `changes ${where}: pods are replaced` : `creates ${where}: pods start`);
    for (const v of podSecurityViolations(pod)) {
      if (v.level === 'baseline' && !existing.has(violationKey(pod, v))) high.push(`${where}: ${shown(v)}, new in this change`);
      else if (changed && violates(v, level.level)) high.push(`${where}: ${shown(v)}; ${level.from} enforces ${level.level}`);
    }
    const read = was ? podReferences(was) : new Set<string>();
    for (const ref of podReferences(pod)) if (!read.has(ref)) high.push(`${where} reads ${ref}, which it did not read before`);
    const images = was ? pulled(was) : new Map<string, string>();
    for (const [where, image] of pulled(pod)) {
      const prior = images.get(where);
      if (image === prior) continue;
      if (!known.has(imageRegistry(image))) high.push(`image ${image} is from registry ${imageRegistry(image)}, new to this object`);
      else medium.push(`image ${String(prior ?? '(none)')} -> ${image}`);
    }
  }
  return { high, medium };
}

/** Images in the result's new or changed containers (found by shape) whose registry `registries` does not name: SVC_IMAGE_REGISTRIES refuses them. */
export function foreignImages(live: KubeObject | null, result: KubeObject, registries: readonly string[]): string[] {
  const before = new Set(imagesOf(findPods(live ?? {})));
  return imagesOf(findPods(result)).filter((i) => !before.has(i) && !registries.includes(imageRegistry(i)));
}
