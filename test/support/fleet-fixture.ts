import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { writeFleetKubeconfig } from '../../lab/sandbox/kube/fleet-kubeconfig.js';
import { webManifest } from './operate-fixtures.js';

/** Stand-in clusters behind one kubeconfig, a context each, `web` (2 replicas) in x on each; the env that makes svc serve them all. */
export interface FleetFixture {
  clusters: Record<string, KubeApiServer>;
  env: Record<string, string>;
  /** Requests that persisted something (anything but GET and dry runs) on the named cluster. */
  writes(name: string): KubeApiServer['requests'];
  close(): Promise<void>;
}

export async function startFleet(names: readonly string[], clustersYaml = ''): Promise<FleetFixture> {
  const clusters: Record<string, KubeApiServer> = {};
  for (const name of names) {
    const kube = await KubeApiServer.start();
    kube.create(webManifest(2));
    kube.settle();
    clusters[name] = kube;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-fleet-'));
  const kubeconfig = writeFleetKubeconfig(
    path.join(dir, 'kubeconfig'),
    names.map((name) => ({ name, url: clusters[name].url, token: clusters[name].token })),
  );
  // a ledger (and sessions) of its own: what a test reads back is this fleet's
  const env: Record<string, string> = { KUBECONFIG: kubeconfig, SVC_CLUSTERS: names.join(','), SVC_DATA_DIR: path.join(dir, 'data') };
  if (clustersYaml) {
    env.SVC_CLUSTERS_FILE = path.join(dir, 'clusters.yaml');
    writeFileSync(env.SVC_CLUSTERS_FILE, clustersYaml);
  }
  return {
    clusters,
    env,
    writes: (name) => clusters[name].requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All'),
    async close() {
      await Promise.all(Object.values(clusters).map((c) => c.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
