import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { LoadedScenario } from '../evaluation/scenario-loader.js';
import { findObject, judgeHealth, scenarioBehaviour, type HealthReport } from './scenario-rules.js';
import { KubeApiServer, RESOURCES, setDefaults, testTls, type Obj } from './stand-in.js';

const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** A deterministic stand-in for apimachinery's rand.String, seeded by the scenario's name: the same pod names on every run. */
export function seededSuffixes(seed: string): () => string {
  let state = createHash('sha256').update(seed).digest().readUInt32BE(0) || 1;
  const next = () => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  return () => Array.from({ length: 5 }, () => SAFE[next() % SAFE.length]).join('');
}

/** Whether the sandbox serves a kind (and under which apiVersion). */
export function servedKind(apiVersion: string, kind: string): boolean {
  return RESOURCES[apiVersion]?.some((r) => r.kind === kind && !r.name.includes('/')) ?? false;
}

/** A scenario's broken cluster, served as a Kubernetes API on 127.0.0.1 over TLS. */
export class ScenarioCluster {
  private constructor(
    readonly server: KubeApiServer,
    readonly loaded: LoadedScenario,
  ) {}

  /**
   * Starts the API server, stores the scenario's objects (those with a
   * `status` verbatim, the others created and simulated), lets the cluster
   * settle into its broken state and adds the scenario's events.
   */
  static async start(loaded: LoadedScenario): Promise<ScenarioCluster> {
    const unserved = loaded.objects.filter((o) => !servedKind(o.apiVersion, o.kind));
    if (unserved.length) throw new Error(`${loaded.scenario.name}: the sandbox does not serve ${unserved.map((o) => `${o.apiVersion} ${o.kind}`).join(', ')}`);
    const server = await KubeApiServer.start();
    const sandbox = new ScenarioCluster(server, loaded);
    try {
      sandbox.populate();
    } catch (err) {
      await server.close();
      throw err;
    }
    return sandbox;
  }

  private populate(): void {
    const { server, loaded } = this;
    const { scenario } = loaded;
    server.objects.delete(server.pathOf('v1', 'Namespace', 'x'));
    for (const ns of new Set(['default', 'kube-system', ...scenario.cluster.namespaces]))
      if (!server.objects.has(server.pathOf('v1', 'Namespace', ns))) server.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    server.knownImages.clear();
    for (const [image, mib] of Object.entries(scenario.cluster.images)) server.knownImages.set(image, mib);
    server.nameSuffix = seededSuffixes(scenario.name);
    server.containerBehaviour = scenarioBehaviour(server, loaded);
    const autoTick = server.autoTick;
    server.autoTick = false;
    for (const o of loaded.objects) {
      const obj = structuredClone(o) as Obj;
      if ('status' in obj) server.put(obj);
      else {
        setDefaults(obj, undefined);
        server.create(obj);
      }
    }
    server.settle(60);
    for (const e of scenario.cluster.events) {
      const involved = findObject(server, e.involved);
      if (!involved) throw new Error(`${scenario.name}: event about ${e.involved.kind} ${e.involved.name}, which is not in the cluster`);
      for (let i = 0; i < e.count; i++) server.event(involved, e.type, e.reason, e.message, e.component);
    }
    server.autoTick = autoTick;
  }

  /** Lets the simulation run until nothing changes, then judges the scenario's health. */
  health(): HealthReport {
    this.server.settle(100);
    return judgeHealth(this.server, this.loaded);
  }

  /** A kubeconfig for this sandbox (the CA inline, so it stays valid for other processes while the sandbox runs), written 0600. */
  writeKubeconfig(file: string): void {
    const name = `sandbox-${this.loaded.scenario.name}`;
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name, cluster: { server: this.server.url, 'certificate-authority-data': Buffer.from(testTls().caPem).toString('base64') } }],
      users: [{ name, user: { token: this.server.token } }],
      contexts: [{ name, context: { cluster: name, user: name, namespace: this.loaded.scenario.cluster.namespaces[0] } }],
      'current-context': name,
    };
    writeFileSync(file, stringify(config), { mode: 0o600 });
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
