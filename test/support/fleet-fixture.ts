import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { writeFleetKubeconfig } from '../../lab/sandbox/kube/fleet-kubeconfig.js';
import { startModelStandIn, type ModelStandIn } from './model-stand-ins.js';
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

/**
 * Three clusters labelled `team: shop` and `env` staging, canary and
 * production, where nginx:1.28 exists in the registries of staging and
 * production only: a rollout of it degrades in canary, its second wave by
 * `WAVE_ORDER`. Time moves 300 s a read, so verify's settle window passes.
 */
export async function startWaveFleet(): Promise<FleetFixture> {
  const fleet = await startFleet(
    ['staging', 'canary', 'production'],
    'clusters:\n  staging:\n    labels: {env: staging, team: shop}\n  canary:\n    labels: {env: canary, team: shop}\n  production:\n    labels: {env: production, team: shop}\n',
  );
  fleet.clusters.staging.knownImages.set('nginx:1.28', 64);
  fleet.clusters.production.knownImages.set('nginx:1.28', 64);
  for (const kube of Object.values(fleet.clusters)) kube.tickSeconds = 300;
  return fleet;
}

export const WAVE_ORDER = 'env=staging,env=canary,env=production';

/** The model's proposal for every cluster of the wave fleet: web in x on nginx:1.28. */
export const NEW_WEB_IMAGE = {
  type: 'patch',
  target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' },
  patch: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28', ports: [{ containerPort: 80 }] }] } } } },
  description: 'Use nginx:1.28',
  risk: 'medium',
  rationale: 'asked',
};

/** The image web in x runs on the named cluster of a fleet. */
export const webImageIn = (fleet: FleetFixture, name: string): string =>
  fleet.clusters[name].objects.get('/apis/apps/v1/namespaces/x/deployments/web')!.spec.template.spec.containers[0].image;

/** A suite's scripted model (one for the suite) and fleet (a fresh one from `start` for each test, closed after it). */
export interface FleetWithModel {
  chat: ModelStandIn;
  fleet: FleetFixture;
}

/** Registers the mocha hooks of a suite that runs svc against a fleet and a scripted model; the fields are set once the hooks have run. */
export function fleetWithModel(start: () => Promise<FleetFixture>): FleetWithModel {
  const suite = {} as FleetWithModel;
  before(async () => {
    suite.chat = await startModelStandIn('openai');
  });
  after(async () => {
    await suite.chat.close();
  });
  beforeEach(async () => {
    suite.fleet = await start();
    suite.chat.requests.length = 0;
  });
  afterEach(async () => {
    await suite.fleet.close();
  });
  return suite;
}
