import { writeFileSync } from 'node:fs';
import { testTls } from './kube-test-ca.js';

/** One stand-in cluster of a fleet kubeconfig: its context name, API server URL and bearer token. */
export interface FleetContext {
  name: string;
  url: string;
  token: string;
}

/**
 * One kubeconfig with a context per stand-in cluster (each its own cluster
 * and user entry, named after the context), the first context current: what
 * `svc sandbox --clusters N` writes and what SVC_CLUSTERS names.
 */
export function writeFleetKubeconfig(file: string, contexts: readonly FleetContext[]): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: contexts.map((c) => ({ name: c.name, cluster: { server: c.url, 'certificate-authority': testTls().caFile } })),
    users: contexts.map((c) => ({ name: c.name, user: { token: c.token } })),
    contexts: contexts.map((c) => ({ name: c.name, context: { cluster: c.name, user: c.name } })),
    'current-context': contexts[0]?.name ?? '',
  };
  writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
  return file;
}
