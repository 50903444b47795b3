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

export interface SandboxOptions {
  /**
   * Time follows the wall clock (`svc sandbox`, for kubectl): the simulation
   * steps every WALL_TICK_SECONDS of real time instead of once per read. Off
   * for `svc eval`, whose cases run on simulated time.
   */
  wallClock?: boolean;
  /** `svc sandbox --clusters N`: this is cluster number `member` (1 to N); it holds the objects `cluster.placement` puts in it. */
  member?: number;
}

/** The simulated step on a wall clock: a rollout moves one pod about every 2 s. */
export const WALL_TICK_SECONDS = 2;

/** A kind node as the kubelet registers it: Ready, with its addresses, capacity and versions. */
function nodeObject(name: string, now: string): Obj {
  const ready = {
    type: 'Ready',
    status: 'True',
    reason: 'KubeletReady',
    message: 'kubelet is posting ready status',
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  };
  const pressure = (type: string, reason: string, message: string) => ({
    type,
    status: 'False',
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  const capacity = { cpu: '4', memory: '8139684Ki', pods: '110', 'ephemeral-storage': '102626232Ki' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      creationTimestamp: now,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'amd64',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], providerID: `kind://docker/kind/${name}` },
    status: {
      capacity,
      allocatable: capacity,
      conditions: [
        pressure('MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        pressure('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        pressure('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        ready,
      ],
      addresses: [
        { type: 'InternalIP', address: '172.18.0.2' },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: 'b0a2c1d5e4f34c8d9a7e6f5d4c3b2a19',
        systemUUID: 'b0a2c1d5-e4f3-4c8d-9a7e-6f5d4c3b2a19',
        bootID: '2f9c4b1e-7d3a-4e8f-9b6c-5a4d3e2f1c0b',
        kernelVersion: '6.1.0-28-amd64',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion: 'containerd://1.7.18',
        kubeletVersion: 'v1.31.2',
        kubeProxyVersion: 'v1.31.2',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/** A scenario's broken cluster, served as a Kubernetes API on 127.0.0.1 over TLS. */
export class ScenarioCluster {
  private constructor(
    readonly server: KubeApiServer,
    readonly loaded: LoadedScenario,
    private readonly wallClock = false,
  ) {}

  /**
   * Starts the API server, stores the scenario's objects (those with a
   * `status` verbatim, the others created and simulated), lets the cluster
   * settle into its broken state and adds the scenario's events.
   */
  static async start(loaded: LoadedScenario, opts: SandboxOptions = {}): Promise<ScenarioCluster> {
    const unserved = loaded.objects.filter((o) => !servedKind(o.apiVersion, o.kind));
    if (unserved.length) throw new Error(`${loaded.scenario.name}: the sandbox does not serve ${unserved.map((o) => `${o.apiVersion} ${o.kind}`).join(', ')}`);
    const server = await KubeApiServer.start();
    // only what it serves is advertised: no aggregated API answering 503
    server.advertiseBroken = false;
    if (opts.wallClock) {
      server.tickSeconds = WALL_TICK_SECONDS;
      // settling (at most 60 ticks) then ends at about now, so no time is in the future
      server.setClock(Date.now() - 60 * WALL_TICK_SECONDS * 1000);
    }
    const sandbox = new ScenarioCluster(server, placedIn(loaded, opts.member), opts.wallClock === true);
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
    for (const host of scenario.cluster.privateRegistries) server.privateRegistries.add(host);
    server.nameSuffix = seededSuffixes(scenario.name);
    server.containerBehaviour = scenarioBehaviour(server, loaded);
    const autoTick = server.autoTick;
    server.autoTick = false;
    // fixtures stored as written first (Nodes among them), so the simulated pods find their nodes
    for (const o of loaded.objects.filter((x) => 'status' in x)) server.put(structuredClone(o) as Obj);
    for (const o of loaded.objects.filter((x) => !('status' in x))) {
      const obj = structuredClone(o) as Obj;
      setDefaults(obj, undefined);
      server.create(obj);
    }
    server.settle(60);
    this.addNodes();
    for (const e of scenario.cluster.events) {
      const involved = findObject(server, e.involved);
      if (!involved) throw new Error(`${scenario.name}: event about ${e.involved.kind} ${e.involved.name}, which is not in the cluster`);
      for (let i = 0; i < e.count; i++) server.event(involved, e.type, e.reason, e.message, e.component);
    }
    server.autoTick = autoTick;
    server.wallClock = this.wallClock;
  }

  /** A Ready Node for every node name a pod carries (stored as fixtures; nothing simulates them). */
  private addNodes(): void {
    const names = new Set([...this.server.objects.values()].filter((o) => o.kind === 'Pod' && o.spec?.nodeName).map((o) => o.spec.nodeName as string));
    for (const name of names) {
      if (this.server.objects.has(this.server.pathOf('v1', 'Node', name))) continue;
      this.server.put(nodeObject(name, this.server.now()));
    }
  }

  /** Lets the simulation run until nothing changes, then judges the scenario's health. */
  health(): HealthReport {
    this.server.settle(100);
    return judgeHealth(this.server, this.loaded);
  }

  /** The kubeconfig entries of this sandbox under `name` (the CA inline, so they stay valid for other processes while the sandbox runs). */
  kubeconfigEntries(name: string): { cluster: object; user: object; context: object } {
    return {
      cluster: { name, cluster: { server: this.server.url, 'certificate-authority-data': Buffer.from(testTls().caPem).toString('base64') } },
      user: { name, user: { token: this.server.token } },
      context: { name, context: { cluster: name, user: name, namespace: this.loaded.scenario.cluster.namespaces[0] } },
    };
  }

  /** A kubeconfig for this sandbox (the CA inline, so it stays valid for other processes while the sandbox runs), written 0600. */
  writeKubeconfig(file: string): void {
    writeSandboxesKubeconfig(file, [{ sandbox: this, context: `sandbox-${this.loaded.scenario.name}` }]);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

/** One kubeconfig for several sandboxes, a context each (the first is current), written 0600: what SVC_CLUSTERS names. */
export function writeSandboxesKubeconfig(file: string, members: readonly { sandbox: ScenarioCluster; context: string }[]): void {
  const entries = members.map((m) => m.sandbox.kubeconfigEntries(m.context));
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: entries.map((e) => e.cluster),
    users: entries.map((e) => e.user),
    contexts: entries.map((e) => e.context),
    'current-context': members[0].context,
  };
  writeFileSync(file, stringify(config), { mode: 0o600 });
}

/**
 * The scenario as cluster `member` of a fleet sandbox holds it: the objects of
 * the files `cluster.placement` puts there (every file it does not name), and
 * the health rules that judge it (a rule's `clusters`; every rule without one).
 */
export function placedIn(loaded: LoadedScenario, member: number | undefined): LoadedScenario {
  if (member === undefined) return loaded;
  const { cluster } = loaded.scenario;
  const rules = cluster.rules.filter((r) => r.clusters?.includes(member) ?? true);
  const judged = rules.length === cluster.rules.length ? loaded : { ...loaded, scenario: { ...loaded.scenario, cluster: { ...cluster, rules } } };
  const placement = cluster.placement;
  if (!placement || !loaded.objectFiles) return judged;
  const files = loaded.objectFiles;
  const objects = loaded.objects.filter((_, i) => placement[files[i]]?.includes(member) ?? true);
  return { ...judged, objects, objectFiles: files.filter((f) => placement[f]?.includes(member) ?? true) };
}
