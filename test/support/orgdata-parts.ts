import { AnalyseCapability } from '../../application/orgdata/analyse-capability.js';
import { partitionCluster } from '../../application/orgdata/cluster-partition.js';
import { ClusterScans } from '../../application/orgdata/cluster-scans.js';
import { CollectionOperations, DocumentOperations } from '../../application/orgdata/document-operations.js';
import { ManageOrgData } from '../../application/orgdata/manage-org-data.js';
import { OrgCollection } from '../../application/orgdata/org-collection.js';
import { ScanCapabilities, type ScanDeps } from '../../application/orgdata/scan-capabilities.js';
import type { ApiResourceInfo } from '../../domain/cluster/kube-types.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { FakeScanStateStore } from '../fakes/fake-scan-state-store.js';
import { CapturingLogger } from './capturing-logger.js';
import { FakeClock } from './fake-clock.js';
import { FakeEmbedder } from './fake-embedder.js';
import { FakeVectorStore } from './fake-vector-store.js';
import { RecordingTracer } from './recording-tracer.js';

export interface OrgDataParts {
  manage: ManageOrgData;
  scan: ScanCapabilities;
  store: VectorStore;
  embedder: Embedder;
  llm: LlmProvider;
  cluster: FakeCluster;
  states: FakeScanStateStore;
  clock: FakeClock;
  logger: CapturingLogger;
  /** With `clusters`: the scans of each cluster (what manageOrgData uses then) and each cluster's state store. */
  clusterScans?: ClusterScans;
  clusterStates: Map<string, FakeScanStateStore>;
  /** What `scan` is built with (over `states`), for a test that builds a scanner or a scan run itself. */
  deps: ScanDeps;
}

export interface PartsOptions {
  store?: VectorStore;
  embedder?: Embedder;
  llm?: LlmProvider;
  cluster?: FakeCluster;
  states?: FakeScanStateStore;
  clock?: FakeClock;
  holder?: string;
  batchSize?: number;
  /** Keep capabilities and scans per cluster, as svc serving these clusters does. */
  clusters?: readonly string[];
  /** Each cluster's state store (shared with an earlier "process" for a restart); missing ones are made. */
  clusterStates?: Map<string, FakeScanStateStore>;
}

/** manageOrgData's use cases over fakes, assembled as the composition root does. */
export function orgDataParts(o: PartsOptions = {}): OrgDataParts {
  const clock = o.clock ?? new FakeClock();
  const store = o.store ?? new FakeVectorStore();
  const embedder = o.embedder ?? new FakeEmbedder(8);
  const llm = o.llm ?? new FakeLlm([], capabilityReply());
  const cluster = o.cluster ?? new FakeCluster();
  const states = o.states ?? new FakeScanStateStore(clock);
  const logger = new CapturingLogger();
  const collection = (name: string) => new OrgCollection(name, store, embedder, `manageOrgData deleteAll for ${name}`);
  const capabilities = new OrgCollection(
    'capabilities',
    store,
    embedder,
    'manageOrgData deleteAll for capabilities',
    o.clusters ? partitionCluster : undefined,
  );
  let n = 0;
  const ids = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  let scans = 0;
  const analyse = new AnalyseCapability(cluster, llm, capabilities, { timeoutMs: 5000, maxTokens: 100_000, maxOutputTokens: 2000 });
  const scanDeps = (slot: FakeScanStateStore, clusterName?: string): ScanDeps => ({
    cluster,
    llm,
    collection: capabilities,
    analyse,
    states: slot,
    clock,
    tracer: new RecordingTracer(),
    logger,
    ...(clusterName !== undefined ? { clusterName } : {}),
    holder: o.holder ?? 'holder-1',
    newScanId: () => `scan_${String(++scans).padStart(32, '0')}`,
    settings: { batchSize: o.batchSize ?? 4, leaseMs: 60_000 },
  });
  const scanner = (slot: FakeScanStateStore, clusterName?: string) => new ScanCapabilities(scanDeps(slot, clusterName));
  const scan = scanner(states);
  const clusterStates = o.clusterStates ?? new Map<string, FakeScanStateStore>();
  const slotOf = (c: string) => clusterStates.get(c) ?? clusterStates.set(c, new FakeScanStateStore(clock)).get(c)!;
  const clusterScans = o.clusters ? new ClusterScans(o.clusters, (c) => scanner(slotOf(c), c), logger) : undefined;
  const manage = new ManageOrgData(
    new DocumentOperations('pattern', collection('patterns'), clock, ids),
    new DocumentOperations('policy', collection('policies'), clock, ids),
    new CollectionOperations('capabilities', capabilities),
    clusterScans ?? scan,
  );
  return {
    manage,
    scan,
    deps: scanDeps(states),
    store,
    embedder,
    llm,
    cluster,
    states,
    clock,
    logger,
    ...(clusterScans ? { clusterScans } : {}),
    clusterStates,
  };
}

/** The kind named in a capability-analysis request (from its resource data block). */
export function kindOf(messages: { content?: string | null }[]): string {
  const user = messages.map((m) => m.content ?? '').join('\n');
  return /"kind":"([A-Za-z0-9]+)"/.exec(user)?.[1] ?? 'unknown';
}

/** A well-formed analysis for whatever kind is asked about. */
export function capabilityReply() {
  return (messages: { content?: string | null }[]) => JSON.stringify(analysisFor(kindOf(messages)));
}

export function analysisFor(kind: string) {
  return {
    capabilities: [`${kind} management`, `${kind.toLowerCase()} lifecycle`],
    providers: ['kubernetes'],
    complexity: 'medium',
    useCases: [`running ${kind.toLowerCase()} workloads`],
    description: `${kind} is a Kubernetes resource kind.`,
    confidence: 0.8,
  };
}

export const KINDS = [
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Service',
  'Ingress',
  'ConfigMap',
  'Secret',
  'PersistentVolumeClaim',
  'NetworkPolicy',
];

/** A dozen kinds in the shapes discovery reports, plus an older version of Deployment (deduplicated by a scan). */
export function dozenKinds(): ApiResourceInfo[] {
  const group: Record<string, [string, string]> = {
    Deployment: ['apps', 'v1'],
    StatefulSet: ['apps', 'v1'],
    DaemonSet: ['apps', 'v1'],
    ReplicaSet: ['apps', 'v1'],
    Job: ['batch', 'v1'],
    CronJob: ['batch', 'v1'],
    Ingress: ['networking.k8s.io', 'v1'],
    NetworkPolicy: ['networking.k8s.io', 'v1'],
  };
  const out = KINDS.map((kind) => {
    const [g, v] = group[kind] ?? ['', 'v1'];
    return {
      group: g,
      version: v,
      apiVersion: g ? `${g}/${v}` : v,
      kind,
      resource: `${kind.toLowerCase()}s`,
      namespaced: true,
      verbs: ['get', 'list'],
      shortNames: [],
    };
  });
  out.push({
    group: 'apps',
    version: 'v1beta2',
    apiVersion: 'apps/v1beta2',
    kind: 'Deployment',
    resource: 'deployments',
    namespaced: true,
    verbs: ['get'],
    shortNames: [],
  });
  return out;
}

/** Resolves after pending promise callbacks (and a macrotask) have run. */
export const tick = () => new Promise((r) => setImmediate(r));
