import type { KubeObject } from '../cluster/kube-types.js';
import { toYaml } from '../deployment/manifest-yaml.js';

/** One file a delivery writes: a path relative to the repository root and its text. */
export interface RepoFile {
  path: string;
  content: string;
}

const WORKLOADS = ['Deployment', 'StatefulSet', 'DaemonSet', 'CronJob', 'Job'];
const safe = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[.-]+|-+$/g, '');

/**
 * The folder a solution's files go to when the caller names none: the name of
 * its first workload (else its first object), so `web/` holds the web app.
 */
export function solutionFolderName(objects: readonly KubeObject[], solutionId: string): string {
  const named = objects.find((o) => WORKLOADS.includes(o.kind)) ?? objects[0];
  return (named && safe(named.metadata.name)) || solutionId;
}

/**
 * One YAML file per object, `<kind>-<name>.yaml` in lower case under
 * `folder` ('' is the root). Two objects of one kind and name (other
 * namespaces) get the namespace added, so no file overwrites another.
 */
export function manifestFiles(objects: readonly KubeObject[], folder: string): RepoFile[] {
  const base = (o: KubeObject) => `${safe(o.kind)}-${safe(o.metadata.name)}`;
  const counts = new Map<string, number>();
  for (const o of objects) counts.set(base(o), (counts.get(base(o)) ?? 0) + 1);
  return objects.map((o) => {
    const clash = (counts.get(base(o)) ?? 0) > 1 && o.metadata.namespace;
    const name = clash ? `${base(o)}-${safe(o.metadata.namespace!)}` : base(o);
    return { path: folder ? `${folder}/${name}.yaml` : `${name}.yaml`, content: toYaml([o]) };
  });
}
