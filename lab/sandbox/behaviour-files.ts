import { posix } from 'node:path';
import { FILES_OPERATORS, type FieldCondition } from '../../domain/evaluation/scenario.js';
import type { KubeCluster, Obj } from './stand-in.js';
import { containerOf, envValue, sourceData } from './container-env.js';
import { claimBinds } from './kube/kube-claims.js';

/**
 * The behaviour conditions on what a container sees on its filesystem and
 * how it runs (docs/evaluation.md, "Behaviour conditions"): a model of the
 * container's mounts built from the pod's volumes and the container's
 * volumeMounts as the kubelet makes them (ConfigMap, Secret and projected
 * volumes with or without items and subPath, emptyDir, claims), its security
 * context merged from the pod's and its own, and its command line as a flag
 * parser reads it. Each accepts every fix with the same effect: the file at
 * the path the program reads, whether by moving the mount, mapping the key or
 * pointing the program elsewhere.
 */

type Conditions = Pick<FieldCondition, (typeof FILES_OPERATORS)[number]>;

/** Whether a condition is one of this family's. */
export const isFilesCondition = (cond: FieldCondition) => FILES_OPERATORS.some((op) => cond[op] !== undefined);

/** What one volume shows the container, as the kubelet mounts it. */
interface Volume {
  /** Why the kubelet cannot mount it (the pod then never starts); undefined when it mounts. */
  error?: string;
  /** A ConfigMap, Secret or projected volume: its files by path inside the volume, each with its content. */
  files?: Map<string, string>;
  /** A claim's volume: the claim, undefined when it does not exist. */
  claim?: Obj;
  /** Always read-only, whatever the mount says (ConfigMap, Secret, projected, downward API). */
  readOnly: boolean;
  /** World-writable (an emptyDir); otherwise owned by root, writable by another user only through fsGroup. */
  worldWritable: boolean;
}

/** A container's mount of a volume. */
interface Mount {
  mountPath: string;
  subPath: string;
  readOnly: boolean;
  volume: Volume;
}

/** Where a path of the container lies: on a mount (with the path inside the volume) or, with no mount covering it, on the image's root filesystem. */
type Place = { mount: Mount; inVolume: string } | { mount: undefined };

/** The files of a ConfigMap or Secret source: every key by its own name, or the listed items at their paths; an error when a key or the object is missing and not optional. */
function keyFiles(c: KubeCluster, ns: string, kind: 'ConfigMap' | 'Secret', source: Obj): { files: Map<string, string>; error?: string } {
  const name: string | undefined = kind === 'ConfigMap' ? source.name : (source.secretName ?? source.name);
  const data = sourceData(c, ns, kind, name);
  const files = new Map<string, string>();
  const word = kind === 'ConfigMap' ? 'configmap' : 'secret';
  if (!data) return source.optional === true ? { files } : { files, error: `${word} "${name ?? ''}" not found` };
  const items: Obj[] | undefined = source.items;
  if (!items) for (const [key, value] of Object.entries(data)) files.set(key, value);
  for (const item of items ?? []) {
    if (item.key in data) files.set(posix.normalize(String(item.path ?? '')), data[item.key]);
    else if (source.optional !== true) return { files, error: `${word} references non-existent config key: ${item.key}` };
  }
  return { files };
}

/** What a volume of the pod spec shows, resolved against the live cluster. */
function volumeOf(c: KubeCluster, ns: string, v: Obj): Volume {
  const fixed = { readOnly: true, worldWritable: false };
  if (v.configMap) return { ...fixed, ...keyFiles(c, ns, 'ConfigMap', v.configMap) };
  if (v.secret) return { ...fixed, ...keyFiles(c, ns, 'Secret', v.secret) };
  if (v.projected) {
    const files = new Map<string, string>();
    for (const s of (v.projected.sources ?? []) as Obj[]) {
      const kind = s.configMap ? 'ConfigMap' : s.secret ? 'Secret' : undefined;
      if (!kind) continue;
      const part = keyFiles(c, ns, kind, s.configMap ?? s.secret);
      if (part.error) return { ...fixed, files, error: part.error };
      for (const [p, content] of part.files) files.set(p, content);
    }
    return { ...fixed, files };
  }
  if (v.downwardAPI) return fixed;
  if (v.emptyDir) return { readOnly: false, worldWritable: true };
  if (v.persistentVolumeClaim) {
    const claimName: string = v.persistentVolumeClaim.claimName ?? '';
    const claim = c.objects.get(c.pathOf('v1', 'PersistentVolumeClaim', claimName, ns));
    const error = !claim
      ? `persistentvolumeclaim "${claimName}" not found`
      : claimBinds(c, claim)
        ? undefined
        : 'pod has unbound immediate PersistentVolumeClaims';
    return { readOnly: v.persistentVolumeClaim.readOnly === true, worldWritable: false, claim, ...(error ? { error } : {}) };
  }
  return { readOnly: false, worldWritable: false };
}

/** The container's mounts, longest path first; undefined when a mount names no volume of the pod. */
function mountsOf(c: KubeCluster, ns: string, podSpec: Obj, container: Obj): Mount[] | undefined {
  const volumes = new Map(((podSpec.volumes ?? []) as Obj[]).map((v) => [v.name, v]));
  const mounts: Mount[] = [];
  for (const m of (container.volumeMounts ?? []) as Obj[]) {
    const v = volumes.get(m.name);
    if (!v || typeof m.mountPath !== 'string') return undefined;
    const volume = volumeOf(c, ns, v);
    mounts.push({ mountPath: posix.resolve('/', m.mountPath), subPath: String(m.subPath ?? ''), readOnly: m.readOnly === true || volume.readOnly, volume });
  }
  return mounts.sort((a, b) => b.mountPath.length - a.mountPath.length);
}

/**
 * Whether the pod starts: every volume a container of it mounts does (its
 * ConfigMap, Secret and keys exist, its claim exists and binds). The kubelet
 * mounts only the volumes a container uses.
 */
function podMounts(c: KubeCluster, ns: string, podSpec: Obj): boolean {
  const containers: Obj[] = [...(podSpec.containers ?? []), ...(podSpec.initContainers ?? [])];
  return containers.every((k) => mountsOf(c, ns, podSpec, k)?.every((m) => !m.volume.error) ?? false);
}

/** Where an absolute path of the container lies: the deepest mount covering it, the path inside its volume (past the subPath). */
function placeOf(mounts: Mount[], path: string): Place {
  const target = posix.resolve('/', path);
  const mount = mounts.find((m) => target === m.mountPath || target.startsWith(m.mountPath === '/' ? '/' : `${m.mountPath}/`));
  if (!mount) return { mount: undefined };
  const inVolume = posix.normalize(posix.join(mount.subPath, posix.relative(mount.mountPath, target)));
  return { mount, inVolume: inVolume === '.' ? '' : inVolume.replace(/\/$/, '') };
}

/** The path a condition names: the value of its variable when the container sees one (relative to workingDir), else its `path`. */
function targetPath(c: KubeCluster, ns: string, podSpec: Obj, k: Obj, at: { path?: string; env?: string }): string | undefined {
  const fromEnv = at.env === undefined ? undefined : envValue(c, ns, podSpec, at.env, k.name);
  if (!fromEnv) return at.path;
  const dir = typeof k.workingDir === 'string' && k.workingDir.startsWith('/') ? k.workingDir : '/';
  return posix.resolve(dir, fromEnv);
}

/** The container's security context merged with the pod's: the container's own setting wins. */
export function effectiveSecurity(podSpec: Obj, k: Obj): { runAsNonRoot?: boolean; runAsUser?: number; readOnlyRootFilesystem?: boolean; fsGroup?: number } {
  const pod: Obj = podSpec.securityContext ?? {};
  const own: Obj = k.securityContext ?? {};
  return {
    runAsNonRoot: own.runAsNonRoot ?? pod.runAsNonRoot,
    runAsUser: own.runAsUser ?? pod.runAsUser,
    readOnlyRootFilesystem: own.readOnlyRootFilesystem,
    fsGroup: pod.fsGroup,
  };
}

/**
 * Whether the merged security context has the wanted settings. Non-root holds
 * only while the container can start under it: runAsNonRoot with runAsUser 0
 * is refused by the kubelet.
 */
function hasSecurity(have: ReturnType<typeof effectiveSecurity>, want: NonNullable<FieldCondition['effective']>): boolean {
  const nonRoot = have.runAsNonRoot === true && have.runAsUser !== 0;
  const matches = (actual: boolean, wanted: boolean | undefined) => wanted === undefined || actual === wanted;
  return matches(nonRoot, want.runAsNonRoot) && matches(have.readOnlyRootFilesystem === true, want.readOnlyRootFilesystem);
}

/**
 * Whether the container can write at the path: a writable mount covers it (an
 * emptyDir; a claim or another volume owned by root when the process runs as
 * root or the pod sets fsGroup, which the kubelet gives the volume and adds to
 * the process's groups), or no mount does and the root filesystem is not read-only.
 * A process whose user the pod does not set runs as the image's, taken as root.
 */
function canWrite(podSpec: Obj, k: Obj, place: Place): boolean {
  const security = effectiveSecurity(podSpec, k);
  if (!place.mount) return security.readOnlyRootFilesystem !== true;
  const { mount } = place;
  if (mount.readOnly) return false;
  return mount.volume.worldWritable || (security.runAsUser ?? 0) === 0 || security.fsGroup !== undefined;
}

/** Whether a claim is the one named, or a clone of it (a claim whose dataSource is that claim holds the same data). */
function isClaim(claim: Obj | undefined, name: string | undefined): boolean {
  if (!claim) return false;
  if (name === undefined || claim.metadata.name === name) return true;
  const source: Obj | undefined = claim.spec?.dataSourceRef ?? claim.spec?.dataSource;
  return source?.kind === 'PersistentVolumeClaim' && source.name === name;
}

/**
 * Whether the command line (the words after the executable when `command`
 * is set, else `args` to the image's entrypoint) passes the program only flags
 * it knows, each value flag with its value (`--flag=v`, or `--flag v` taking
 * the next word whatever it is), and every required flag; `--` ends the flags.
 */
export function acceptsFlags(k: Obj, accepts: NonNullable<FieldCondition['accepts']>): boolean {
  const argv: unknown[] = [...((k.command ?? []) as unknown[]).slice(1), ...((k.args ?? []) as unknown[])];
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (typeof word !== 'string') return false;
    if (word === '--') break;
    if (!word.startsWith('-') || word === '-') continue;
    const name = word.split('=')[0];
    seen.add(name);
    if (accepts.switches.includes(name)) continue;
    if (!accepts.flags.includes(name)) return false;
    if (!word.includes('=') && ++i >= argv.length) return false;
  }
  return accepts.required.every((f) => seen.has(f));
}

/** Whether a condition of this family holds for the container (`container`, else the rule's, else the first) of the pod spec in `ns`. */
export function filesHold(c: KubeCluster, ns: string, podSpec: Obj, cond: Conditions, defaultContainer: string | undefined): boolean {
  const spec = cond.file ?? cond.writable ?? cond.effective ?? cond.claims ?? cond.accepts;
  const k = containerOf(podSpec, spec?.container ?? defaultContainer, true);
  if (!k || !spec) return false;
  if (cond.accepts) return acceptsFlags(k, cond.accepts);
  if (cond.effective) return hasSecurity(effectiveSecurity(podSpec, k), cond.effective);
  const mounts = mountsOf(c, ns, podSpec, k);
  if (!mounts || !podMounts(c, ns, podSpec)) return false;
  if (cond.claims) {
    const place = placeOf(mounts, cond.claims.path);
    return !!place.mount && place.inVolume === '' && isClaim(place.mount.volume.claim, cond.claims.name);
  }
  const at = cond.file ?? cond.writable!;
  const path = targetPath(c, ns, podSpec, k, at);
  if (path === undefined) return false;
  const place = placeOf(mounts, path);
  if (cond.writable) return canWrite(podSpec, k, place);
  const content = place.mount?.volume.files?.get(place.inVolume);
  if (content === undefined) return false;
  const from = cond.file!.from;
  return !from || content === sourceData(c, ns, from.kind, from.name)?.[from.key];
}
