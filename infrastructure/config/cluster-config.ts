import { existsSync } from 'node:fs';
import path from 'node:path';
import { bool, ConfigError, int, str, type Env } from './env-parsers.js';
import type { FleetConfig } from './fleet-config.js';

/** Where the cluster credentials come from; `none` selects the not-configured client. */
export type ClusterSource =
  | { mode: 'kubeconfig'; files: string[]; origin: 'KUBECONFIG' | 'default' }
  /** The pod's service account: token, CA and namespace files under `serviceAccountDir`. */
  | { mode: 'in-cluster'; host: string; port: number; serviceAccountDir: string }
  | { mode: 'none' };

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface ClusterConfig {
  source: ClusterSource;
  /** Per-request timeout for API calls, milliseconds. */
  requestTimeoutMs: number;
  /** `SVC_KUBE_IMPERSONATE`: every request made for a caller impersonates them (Impersonate-User / Impersonate-Group). */
  impersonate?: boolean;
  /** `SVC_CLUSTERS` (and `SVC_CLUSTERS_FILE`): the clusters svc serves; absent when SVC_CLUSTERS is unset (the one cluster of `source`). */
  fleet?: FleetConfig;
}

/**
 * Same order as kubectl minus the flags: KUBECONFIG (a path list), then the
 * pod's service account (KUBERNETES_SERVICE_HOST), then ~/.kube/config.
 * `fileExists` is injectable so tests do not depend on this machine's home.
 */
export function parseClusterConfig(env: Env, fileExists: (file: string) => boolean = existsSync): ClusterConfig {
  return {
    source: parseSource(env, fileExists),
    requestTimeoutMs: int(env, 'SVC_KUBE_TIMEOUT_MS', 30000, 100, 600000),
    impersonate: bool(env, 'SVC_KUBE_IMPERSONATE', false),
  };
}

function parseSource(env: Env, fileExists: (file: string) => boolean): ClusterSource {
  const kubeconfig = str(env, 'KUBECONFIG');
  if (kubeconfig !== undefined) {
    const listed = kubeconfig.split(path.delimiter).filter((f) => f.trim() !== '');
    const files = listed.filter((f) => fileExists(f));
    if (files.length === 0) {
      throw new ConfigError('KUBECONFIG', `names no existing file (${listed.join(path.delimiter)}): point it at a kubeconfig file, or unset it`);
    }
    return { mode: 'kubeconfig', files, origin: 'KUBECONFIG' };
  }
  const host = str(env, 'KUBERNETES_SERVICE_HOST');
  if (host !== undefined) {
    if (str(env, 'KUBERNETES_SERVICE_PORT') === undefined) {
      throw new ConfigError('KUBERNETES_SERVICE_PORT', 'must be set when KUBERNETES_SERVICE_HOST is (in-cluster configuration)');
    }
    return { mode: 'in-cluster', host, port: int(env, 'KUBERNETES_SERVICE_PORT', 443, 1, 65535), serviceAccountDir: SERVICE_ACCOUNT_DIR };
  }
  const home = str(env, 'HOME') ?? str(env, 'USERPROFILE');
  const fallback = home ? path.join(home, '.kube', 'config') : undefined;
  if (fallback && fileExists(fallback)) return { mode: 'kubeconfig', files: [fallback], origin: 'default' };
  return { mode: 'none' };
}
