import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { parseRoleMapping, type RoleMapping } from '../../domain/auth/role-mapping.js';
import { CLUSTER_NAME, LABEL_KEY, LABEL_VALUE, MAX_CLUSTERS, type ClusterProfile } from '../../domain/fleet/cluster-profile.js';
import { parseKindName, type KindName } from '../../domain/write-guard/kind-names.js';
import { POD_SECURITY_LEVELS, type PodSecurityLevel } from '../../domain/write-guard/pod-security-levels.js';
import { SERVICE_ACCOUNT_DIR, type ClusterSource } from './cluster-config.js';
import { ConfigError, int, str, type Env } from './env-parsers.js';

/** Where one cluster's credentials come from: a context of the kubeconfig files, or the pod's service account. */
export type MemberSource =
  | { mode: 'kubeconfig'; files: string[]; origin: 'KUBECONFIG' | 'default'; context: string }
  | { mode: 'in-cluster'; host: string; port: number; serviceAccountDir: string };

export interface FleetMemberConfig {
  profile: ClusterProfile;
  source: MemberSource;
}

/** SVC_CLUSTERS (and SVC_CLUSTERS_FILE): the clusters svc serves; absent when SVC_CLUSTERS is unset (svc serves its one cluster, as always). */
export interface FleetConfig {
  members: FleetMemberConfig[];
}

/** The name in-cluster credentials go by among the kubeconfig contexts. */
export const IN_CLUSTER = 'in-cluster';

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const KIND = /^([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?\/|\/)?[A-Z][A-Za-z0-9]{0,62}$/;
const FILE_KEYS = ['labels', 'readOnly', 'protectedNamespaces', 'writeKinds', 'automaticWrites', 'podSecurityLevel', 'roles', 'impersonate'];
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * SVC_CLUSTERS: a comma-separated list of kubeconfig context names (and
 * `in-cluster` inside a pod), or `*` for every context there is; each must
 * exist, else start-up stops naming it. SVC_CLUSTERS_FILE: YAML, `clusters:`
 * mapping each cluster to its labels and rules (every key checked, every
 * cluster named must be in SVC_CLUSTERS).
 */
export function parseFleetConfig(
  env: Env,
  source: ClusterSource,
  fileExists: (file: string) => boolean = existsSync,
  readFile: (file: string) => string = (f) => readFileSync(f, 'utf8'),
): FleetConfig | undefined {
  const listed = str(env, 'SVC_CLUSTERS');
  const file = str(env, 'SVC_CLUSTERS_FILE');
  if (listed === undefined) {
    if (file !== undefined)
      throw new ConfigError('SVC_CLUSTERS_FILE', 'is set, but SVC_CLUSTERS is not: name the clusters (kubeconfig contexts) svc serves there');
    return undefined;
  }
  const kubeconfig = source.mode === 'kubeconfig' ? source : undefined;
  const contexts = kubeconfig ? contextsOf(kubeconfig.files, readFile) : [];
  const inCluster = inClusterSource(env);
  const available = [...contexts, ...(inCluster && !contexts.includes(IN_CLUSTER) ? [IN_CLUSTER] : [])];
  const names =
    listed === '*'
      ? available
      : [
          ...new Set(
            listed
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          ),
        ];
  if (names.length === 0)
    throw new ConfigError(
      'SVC_CLUSTERS',
      `names no cluster (${available.length ? `contexts there are: ${available.join(', ')}` : 'no kubeconfig context was found'})`,
    );
  if (names.length > MAX_CLUSTERS) throw new ConfigError('SVC_CLUSTERS', `names ${names.length} clusters; svc serves at most ${MAX_CLUSTERS}`);
  for (const name of names) {
    if (!CLUSTER_NAME.test(name)) throw new ConfigError('SVC_CLUSTERS', `"${name.slice(0, 100)}" is not a cluster name (letters, digits and . _ @ : / + -)`);
    if (!available.includes(name))
      throw new ConfigError(
        'SVC_CLUSTERS',
        `names ${name}, which is no context of ${kubeconfig ? kubeconfig.files.join(path.delimiter) : 'any kubeconfig'}${name === IN_CLUSTER ? ' and svc is not in a pod (KUBERNETES_SERVICE_HOST)' : ''} (there are: ${available.join(', ') || 'none'})`,
      );
  }
  const rules = file === undefined ? {} : readClustersFile(file, names, fileExists, readFile);
  return {
    members: names.map((name) => ({
      profile: profileOf(name, rules[name] ?? {}),
      source:
        kubeconfig && contexts.includes(name)
          ? { mode: 'kubeconfig', files: kubeconfig.files, origin: kubeconfig.origin, context: name }
          : (inCluster as MemberSource),
    })),
  };
}

/** Every context name of the kubeconfig files, in order, each once. */
function contextsOf(files: readonly string[], readFile: (file: string) => string): string[] {
  const names: string[] = [];
  for (const file of files) {
    let doc: unknown;
    try {
      doc = parse(readFile(file));
    } catch {
      // the cluster client's own parse reports a file that does not parse, naming KUBECONFIG
      continue;
    }
    const contexts = (doc as { contexts?: unknown } | null)?.contexts;
    if (!Array.isArray(contexts)) continue;
    for (const c of contexts) {
      const name = (c as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/** The pod's service account, when svc runs in a pod (KUBERNETES_SERVICE_HOST and _PORT): one cluster among the contexts. */
function inClusterSource(env: Env): MemberSource | undefined {
  const host = str(env, 'KUBERNETES_SERVICE_HOST');
  if (host === undefined || str(env, 'KUBERNETES_SERVICE_PORT') === undefined) return undefined;
  return { mode: 'in-cluster', host, port: int(env, 'KUBERNETES_SERVICE_PORT', 443, 1, 65535), serviceAccountDir: SERVICE_ACCOUNT_DIR };
}

type Rules = Record<string, Record<string, unknown>>;

function readClustersFile(file: string, names: readonly string[], fileExists: (file: string) => boolean, readFile: (file: string) => string): Rules {
  const bad = (problem: string) => new ConfigError('SVC_CLUSTERS_FILE', `(${file}) ${problem}`);
  if (!fileExists(file)) throw bad('does not exist');
  const text = readFile(file);
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) throw bad(`is over ${MAX_FILE_BYTES} bytes`);
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw bad(`is not YAML: ${(e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 200)}`);
  }
  if (!isMap(doc)) throw bad('must be a mapping with a `clusters` key');
  const extra = Object.keys(doc).find((k) => k !== 'clusters');
  if (extra !== undefined) throw bad(`has an unknown key "${extra.slice(0, 100)}" (only clusters)`);
  const clusters = doc.clusters ?? {};
  if (!isMap(clusters)) throw bad('clusters must map each cluster name to its settings');
  const rules: Rules = {};
  for (const [name, settings] of Object.entries(clusters)) {
    if (!names.includes(name)) throw bad(`names cluster "${name.slice(0, 100)}", which SVC_CLUSTERS does not (${names.join(', ')})`);
    if (settings === null) continue;
    if (!isMap(settings)) throw bad(`clusters.${name} must be a mapping`);
    const unknown = Object.keys(settings).find((k) => !FILE_KEYS.includes(k));
    if (unknown !== undefined) throw bad(`clusters.${name} has an unknown key "${unknown.slice(0, 100)}" (keys: ${FILE_KEYS.join(', ')})`);
    checkRules(name, settings, bad);
    rules[name] = settings;
  }
  return rules;
}

function checkRules(name: string, s: Record<string, unknown>, bad: (problem: string) => ConfigError): void {
  const at = (key: string) => `clusters.${name}.${key}`;
  if (s.labels !== undefined) {
    if (!isMap(s.labels)) throw bad(`${at('labels')} must map label keys to values`);
    for (const [k, v] of Object.entries(s.labels)) {
      if (!LABEL_KEY.test(k)) throw bad(`${at('labels')} has "${k.slice(0, 100)}", which is not a label key`);
      if (typeof v !== 'string' || !LABEL_VALUE.test(v)) throw bad(`${at(`labels.${k}`)} must be a label value (a string of letters, digits, - _ .)`);
    }
  }
  for (const key of ['readOnly', 'automaticWrites', 'impersonate'])
    if (s[key] !== undefined && typeof s[key] !== 'boolean') throw bad(`${at(key)} must be true or false`);
  const strings = (key: string, pattern: RegExp, what: string) => {
    const v = s[key];
    if (v === undefined) return;
    if (!Array.isArray(v) || v.some((i) => typeof i !== 'string' || !pattern.test(i))) throw bad(`${at(key)} must be a list of ${what}`);
  };
  strings('protectedNamespaces', NAMESPACE, 'namespace names');
  strings('writeKinds', KIND, 'kinds such as Deployment, apps/Deployment or serving.knative.dev/Service');
  if (s.podSecurityLevel !== undefined && !(POD_SECURITY_LEVELS as readonly unknown[]).includes(s.podSecurityLevel))
    throw bad(`${at('podSecurityLevel')} must be one of ${POD_SECURITY_LEVELS.join(', ')}`);
  if (s.roles !== undefined) {
    if (typeof s.roles !== 'string') throw bad(`${at('roles')} must be written as SVC_ROLES is: role=group,group;role=user:name`);
    try {
      parseRoleMapping(s.roles);
    } catch (e) {
      throw bad(`${at('roles')}: ${(e as Error).message}`);
    }
  }
}

function profileOf(name: string, s: Record<string, unknown>): ClusterProfile {
  return {
    name,
    labels: { ...((s.labels as Record<string, string> | undefined) ?? {}) },
    readOnly: s.readOnly === true,
    protectedNamespaces: [...((s.protectedNamespaces as string[] | undefined) ?? [])],
    ...(s.writeKinds !== undefined ? { writeKinds: (s.writeKinds as string[]).map(parseKindName) as KindName[] } : {}),
    automaticWrites: s.automaticWrites !== false,
    ...(s.podSecurityLevel !== undefined ? { podSecurityLevel: s.podSecurityLevel as PodSecurityLevel } : {}),
    ...(s.roles !== undefined ? { roles: parseRoleMapping(s.roles as string) as RoleMapping } : {}),
    ...(s.impersonate !== undefined ? { impersonate: s.impersonate as boolean } : {}),
  };
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
