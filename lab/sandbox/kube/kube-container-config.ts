/**
 * The kubelet's container config of the Kubernetes API stand-in: before it
 * starts a container, the kubelet resolves the container's environment from
 * ConfigMaps and Secrets, and a reference that does not resolve keeps the
 * container from being created at all (`CreateContainerConfigError`, with a
 * Warning `Failed` "Error: ..." at each retry), as kuberuntime's
 * makeEnvironmentVariables does:
 *
 * - `env[].valueFrom.configMapKeyRef` / `secretKeyRef`: the object must exist
 *   (`configmap "x" not found`) and hold the key (`couldn't find key K in
 *   ConfigMap ns/x`);
 * - `envFrom[].configMapRef` / `secretRef`: the object must exist;
 * - a reference marked `optional: true` never blocks.
 *
 * The kubelet retries at every sync, so the container starts as soon as the
 * ConfigMap or Secret gains what it lacked, or the pod is replaced by one that
 * no longer asks for it. A container already running is left alone.
 */
import type { KubeCluster, Obj } from './kube-cluster.js';

type Source = { kind: 'ConfigMap' | 'Secret'; word: 'configmap' | 'secret' };
const CONFIG_MAP: Source = { kind: 'ConfigMap', word: 'configmap' };
const SECRET: Source = { kind: 'Secret', word: 'secret' };

function stored(c: KubeCluster, source: Source, namespace: string, name: string): Obj | undefined {
  return c.objects.get(c.pathOf('v1', source.kind, name, namespace));
}

/** Why one reference does not resolve, in the kubelet's words; undefined when it does (or is optional). */
function unresolved(c: KubeCluster, source: Source, namespace: string, ref: Obj | undefined, key?: string): string | undefined {
  if (!ref?.name || ref.optional === true) return undefined;
  const object = stored(c, source, namespace, ref.name);
  if (!object) return `${source.word} "${ref.name}" not found`;
  if (key === undefined) return undefined;
  const keys = new Set([...Object.keys(object.data ?? {}), ...Object.keys(object.binaryData ?? {}), ...Object.keys(object.stringData ?? {})]);
  return keys.has(key) ? undefined : `couldn't find key ${key} in ${source.kind} ${namespace}/${ref.name}`;
}

/** The first reference of a container's environment that does not resolve, as the kubelet reports it; undefined when all do. */
export function containerConfigError(c: KubeCluster, pod: Obj, container: Obj): string | undefined {
  const namespace = pod.metadata.namespace ?? 'default';
  for (const e of (container.env ?? []) as Obj[]) {
    const cm = e.valueFrom?.configMapKeyRef;
    const secret = e.valueFrom?.secretKeyRef;
    const why = unresolved(c, CONFIG_MAP, namespace, cm, cm?.key) ?? unresolved(c, SECRET, namespace, secret, secret?.key);
    if (why) return why;
  }
  for (const e of (container.envFrom ?? []) as Obj[]) {
    const why = unresolved(c, CONFIG_MAP, namespace, e.configMapRef) ?? unresolved(c, SECRET, namespace, e.secretRef);
    if (why) return why;
  }
  return undefined;
}

/**
 * Holds a container that is not running in `CreateContainerConfigError` while
 * its environment does not resolve (a Warning `Failed` at each step); returns
 * whether it did, so the caller does not start it.
 */
export function holdOnConfigError(c: KubeCluster, pod: Obj, container: Obj, cs: Obj, fieldPath: string): boolean {
  if (cs.state?.running) return false;
  const why = containerConfigError(c, pod, container);
  if (!why) return false;
  c.event(pod, 'Warning', 'Failed', `Error: ${why}`, 'kubelet', fieldPath);
  Object.assign(cs, { ready: false, started: false, state: { waiting: { reason: 'CreateContainerConfigError', message: why } } });
  return true;
}
