import { isJsonObject, type JsonObject } from '../json-object.js';

/** A pod spec found in an object, with where: `spec.template.spec` in a Deployment, `spec` in a Pod. */
export interface FoundPodSpec {
  path: string;
  spec: JsonObject;
}

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;
const MAX_DEPTH = 12;

const isContainerList = (v: unknown): boolean =>
  Array.isArray(v) && v.length > 0 && v.every((c) => isJsonObject(c) && (typeof c.image === 'string' || typeof c.name === 'string'));

/**
 * Every pod spec in an object, found by shape, whatever the kind: an object
 * holding a `containers` list of objects with an image or a name. A Pod's
 * `spec`, a Deployment's `spec.template.spec`, a CronJob's
 * `spec.jobTemplate.spec.template.spec`, an Argo Rollout's or a Knative
 * Service's `spec.template.spec`, any custom resource that carries
 * containers. `status` is not searched. Bounded depth.
 */
export function findPodSpecs(object: unknown): FoundPodSpec[] {
  const out: FoundPodSpec[] = [];
  const walk = (v: unknown, path: string[], depth: number) => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, [...path, String(i)], depth + 1));
    if (!isJsonObject(v)) return;
    if (isContainerList(v.containers)) out.push({ path: path.join('.'), spec: v });
    for (const [k, x] of Object.entries(v)) if (!(depth === 0 && k === 'status')) walk(x, [...path, k], depth + 1);
  };
  walk(object, [], 0);
  return out;
}

/** The containers of a pod spec, of every list (containers, initContainers, ephemeralContainers), with the list named. */
export function containersOf(spec: JsonObject): { list: string; container: JsonObject }[] {
  return CONTAINER_LISTS.flatMap((list) => (Array.isArray(spec[list]) ? spec[list] : []).filter(isJsonObject).map((container) => ({ list, container })));
}

/** An image reference's registry, as a container runtime reads it: the first component when it has a dot or a port or is localhost, else docker.io. */
export function imageRegistry(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  return /[.:]/.test(first) || first === 'localhost' ? first.toLowerCase() : 'docker.io';
}

const CONTROL_PLANE_KEYS = new Set(['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master']);

/**
 * What in a pod spec lets its pods reach beyond their container, in words:
 * privileged or added capabilities, the host's network, PID or IPC
 * namespace, a hostPath volume, a hostPort, running as user 0, a
 * control-plane nodeSelector, node affinity or toleration (or a toleration
 * of every taint).
 */
export function podSpecDangers(spec: JsonObject): string[] {
  const out: string[] = [];
  for (const ns of ['hostNetwork', 'hostPID', 'hostIPC']) if (spec[ns] === true) out.push(`${ns}: true`);
  for (const v of Array.isArray(spec.volumes) ? spec.volumes : [])
    if (isJsonObject(v) && isJsonObject(v.hostPath)) out.push(`a hostPath volume (${String(v.hostPath.path)})`);
  const podContext = isJsonObject(spec.securityContext) ? spec.securityContext : {};
  if (podContext.runAsUser === 0) out.push('runAsUser 0 for the pod');
  for (const { list, container } of containersOf(spec)) {
    const name = `${list === 'containers' ? 'container' : list.replace(/s$/, '')} ${String(container.name)}`;
    const sc = isJsonObject(container.securityContext) ? container.securityContext : {};
    if (sc.privileged === true) out.push(`${name} is privileged`);
    if (sc.runAsUser === 0) out.push(`${name} runs as user 0`);
    const caps = isJsonObject(sc.capabilities) ? sc.capabilities.add : undefined;
    if (Array.isArray(caps) && caps.length) out.push(`${name} adds capabilities ${caps.map(String).join(', ')}`);
    for (const p of Array.isArray(container.ports) ? container.ports : [])
      if (isJsonObject(p) && p.hostPort) out.push(`${name} uses hostPort ${String(p.hostPort)}`);
  }
  const selector = isJsonObject(spec.nodeSelector) ? Object.keys(spec.nodeSelector) : [];
  if (selector.some((k) => CONTROL_PLANE_KEYS.has(k))) out.push('a nodeSelector for control-plane nodes');
  if ([...CONTROL_PLANE_KEYS].some((k) => JSON.stringify(spec.affinity ?? {}).includes(`"${k}"`))) out.push('node affinity naming control-plane nodes');
  for (const t of Array.isArray(spec.tolerations) ? spec.tolerations : []) {
    if (!isJsonObject(t)) continue;
    if (typeof t.key === 'string' && CONTROL_PLANE_KEYS.has(t.key)) out.push(`a toleration of ${t.key}`);
    else if (!t.key && t.operator === 'Exists') out.push('a toleration of every taint');
  }
  return out;
}
