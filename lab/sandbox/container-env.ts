import type { KubeCluster, Obj } from './stand-in.js';

/*
 * What a container reads from its environment and its ConfigMaps and
 * Secrets, as the kubelet gives them to it: shared by the behaviour
 * conditions (env, files, probes) without their importing one another.
 */

/**
 * The container of a pod spec a condition means: the one of that name, else
 * (no name given) the first; init containers count only when asked for.
 */
export function containerOf(podSpec: Obj, name: string | undefined, withInit = false): Obj | undefined {
  const containers: Obj[] = [...(podSpec.containers ?? []), ...(withInit ? (podSpec.initContainers ?? []) : [])];
  return containers.find((k) => k.name === name) ?? (name === undefined ? containers[0] : undefined);
}

/** The data of a ConfigMap, or of a Secret decoded: what a container reads from it; undefined when it does not exist. */
export function sourceData(c: KubeCluster, ns: string, kind: 'ConfigMap' | 'Secret', name: string | undefined): Record<string, string> | undefined {
  const o = name === undefined ? undefined : c.objects.get(c.pathOf('v1', kind, name, ns));
  if (!o) return undefined;
  if (kind === 'ConfigMap') return (o.data ?? {}) as Record<string, string>;
  const decoded = Object.entries((o.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString('utf8')]);
  return { ...Object.fromEntries(decoded), ...((o.stringData ?? {}) as Record<string, string>) };
}

/** Where a variable's value comes from: a ConfigMap's or Secret's key; none for a literal. */
export interface EnvSource {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  key: string;
}

/**
 * What the container sees in the variable `name`, as the kubelet builds its
 * environment: `envFrom` sources in order (a later one wins), then `env` (the
 * last entry of that name wins) as a literal or a ConfigMap or Secret key.
 * Undefined when nothing sets it or its source or key does not exist.
 */
export function envValue(c: KubeCluster, ns: string, podSpec: Obj, name: string, container?: string): string | undefined {
  return envResolved(c, ns, podSpec, name, container)?.value;
}

/** The value the container sees in `name` and the key it comes from (none for a literal); undefined when it does not resolve. */
export function envResolved(c: KubeCluster, ns: string, podSpec: Obj, name: string, container?: string): { value: string; source?: EnvSource } | undefined {
  const k = containerOf(podSpec, container, true);
  if (!k) return undefined;
  const keyOf = (kind: EnvSource['kind'], ref: Obj | undefined, key: string) => {
    const value = sourceData(c, ns, kind, ref?.name)?.[key];
    return value === undefined ? undefined : { value, source: { kind, name: String(ref!.name), key } };
  };
  let resolved: { value: string; source?: EnvSource } | undefined;
  for (const from of (k.envFrom ?? []) as Obj[]) {
    const prefix: string = from.prefix ?? '';
    if (!name.startsWith(prefix)) continue;
    const key = name.slice(prefix.length);
    resolved = (from.configMapRef ? keyOf('ConfigMap', from.configMapRef, key) : keyOf('Secret', from.secretRef, key)) ?? resolved;
  }
  const entry = ((k.env ?? []) as Obj[]).filter((e) => e.name === name).at(-1);
  if (!entry) return resolved;
  if (entry.valueFrom === undefined) return { value: String(entry.value ?? '') };
  const { configMapKeyRef: cm, secretKeyRef: secret } = entry.valueFrom as Obj;
  if (cm) return keyOf('ConfigMap', cm, cm.key);
  if (secret) return keyOf('Secret', secret, secret.key);
  return undefined;
}
