import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import { AnalyseCapability } from '../../application/orgdata/analyse-capability.js';
import { partitionCluster } from '../../application/orgdata/cluster-partition.js';
import { ClusterScans } from '../../application/orgdata/cluster-scans.js';
import { CollectionOperations, DocumentOperations } from '../../application/orgdata/document-operations.js';
import { ManageOrgData } from '../../application/orgdata/manage-org-data.js';
import { OrgCollection } from '../../application/orgdata/org-collection.js';
import { ScanCapabilities } from '../../application/orgdata/scan-capabilities.js';
import type { ClusterIdentity } from '../../domain/orgdata/policy-clusters.js';
import type { ScanStateStore } from '../../domain/ports/scan-state-store.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import type { Config } from '../config/config.js';
import { FileScanStateStore } from '../scans/file-scan-state-store.js';

/** Tokens per kind of a scan: a schema summary, the answer and one retry fit well within it. */
const MAX_TOKENS_PER_KIND = 100_000;
const MAX_OUTPUT_TOKENS = 2_000;

const rebuild = (dataType: string, then: string) => `manageOrgData {"dataType":"${dataType}","operation":"deleteAll","confirm":true}, then ${then}`;

/** What the org data module is built from: the (traced) ports and, optionally, the scan state store. */
export interface OrgDataDeps {
  config: Config;
  vectorStore: VectorStore;
  embedder: Embedder;
  reader: ClusterReader;
  llm: LlmProvider;
  clock: Clock & Timers;
  tracer: Tracer;
  logger: Logger;
  /** Default: files under `$SVC_DATA_DIR/scans` (Redis with REDIS_URL is passed in by the root). */
  scanStates?: ScanStateStore;
  /** With SVC_CLUSTERS: the clusters svc serves; capabilities and their scans are then kept per cluster, and a policy may be limited to some of them. */
  clusters?: readonly ClusterIdentity[];
  /** A cluster's scan state store; default: files under `$SVC_DATA_DIR/scans/clusters/<name>-<hash>` (Redis with REDIS_URL is passed in by the root). */
  clusterScanStates?: (cluster: string) => ScanStateStore;
}

/** Background work of a started server: resuming an interrupted capability scan, and stopping it. */
export interface ScanBackground {
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** What the org data module gives the rest of the composition. */
export interface OrgDataExports {
  /** The manageOrgData tool's use case. */
  manageOrgData: ManageOrgData;
  scanBackground: ScanBackground;
}

/**
 * manageOrgData's parts over the given (traced) ports: the three
 * collections, the capability scan with its state store under
 * `$SVC_DATA_DIR/scans`, and the tool's use case. With several clusters the
 * capabilities are kept per cluster and each cluster has its own scan.
 * Takes every input as an argument and touches no container.
 */
export function registerOrgData(deps: OrgDataDeps): OrgDataExports {
  const { config, vectorStore: store, embedder, clock, logger } = deps;
  const patterns = new OrgCollection('patterns', store, embedder, rebuild('pattern', 'create the patterns again'));
  const policies = new OrgCollection('policies', store, embedder, rebuild('policy', 'create the policies again'));
  const capabilities = new OrgCollection(
    'capabilities',
    store,
    embedder,
    rebuild('capabilities', 'manageOrgData {"dataType":"capabilities","operation":"scan"}'),
    deps.clusters ? partitionCluster : undefined,
  );
  const analyse = new AnalyseCapability(deps.reader, deps.llm, capabilities, {
    timeoutMs: Math.min(config.orgData.scanKindTimeoutMs, config.ai.timeoutMs),
    maxTokens: Math.min(MAX_TOKENS_PER_KIND, config.ai.maxTokens),
    maxOutputTokens: MAX_OUTPUT_TOKENS,
  });
  const holder = `${hostname()}-${process.pid}-${randomBytes(6).toString('hex')}`;
  const scanner = (states: ScanStateStore, clusterName?: string) =>
    new ScanCapabilities({
      cluster: deps.reader,
      llm: deps.llm,
      collection: capabilities,
      analyse,
      states,
      clock,
      tracer: deps.tracer,
      logger,
      ...(clusterName !== undefined ? { clusterName } : {}),
      holder,
      newScanId: () => `scan_${randomBytes(16).toString('hex')}`,
      settings: { batchSize: config.orgData.scanBatchSize, leaseMs: config.orgData.scanLeaseMs },
    });
  const scansDir = path.join(config.server.dataDir, 'scans');
  const clusterStates = (cluster: string) =>
    deps.clusterScanStates?.(cluster) ?? new FileScanStateStore({ dir: path.join(scansDir, 'clusters', clusterDir(cluster)), clock, logger });
  const scan = deps.clusters
    ? new ClusterScans(
        deps.clusters.map((c) => c.name),
        (cluster) => scanner(clusterStates(cluster), cluster),
        logger,
      )
    : scanner(deps.scanStates ?? new FileScanStateStore({ dir: scansDir, clock, logger }));
  const newId = () => randomUUID();
  return {
    manageOrgData: new ManageOrgData(
      new DocumentOperations('pattern', patterns, clock, newId),
      new DocumentOperations('policy', policies, clock, newId, deps.clusters),
      new CollectionOperations('capabilities', capabilities),
      scan,
    ),
    scanBackground: scanBackground(scan, config, clock, logger),
  };
}

/**
 * Background work of a started server: resumes a capability scan a previous
 * run left unfinished. With replicas (REDIS_URL), it also looks again every
 * lease period, so a scan whose replica died mid-way is finished by another
 * once the dead replica's lease expires. Stopping stops the background scan
 * (its unfinished kinds stay pending for the next start) and releases its lease.
 */
function scanBackground(scan: Pick<ScanCapabilities, 'resume' | 'stop'>, config: Config, clock: Clock & Timers, logger: Logger): ScanBackground {
  let watching: (() => void) | undefined;
  return {
    async resume() {
      if (config.redis.url !== undefined && !watching) {
        // set up before the first look, which may fail while the Redis client still connects
        let cancel = () => {};
        const watch = () => {
          cancel = clock.schedule(config.orgData.scanLeaseMs, () => {
            scan
              .resume()
              .then(
                (o) => o === 'resumed' && logger.info('took over an interrupted capability scan'),
                (e: unknown) => logger.warn('checking for an interrupted capability scan failed', { error: e instanceof Error ? e.message : String(e) }),
              )
              .finally(() => watching && watch());
          });
        };
        watching = () => cancel();
        watch();
      }
      const outcome = await scan.resume();
      if (outcome !== 'none') logger.info('interrupted capability scan', { outcome });
    },
    stop() {
      watching?.();
      watching = undefined;
      return scan.stop();
    },
  };
}

/**
 * A cluster's scan directory: a context name may hold `/`, `:` or `..`, so
 * the name is kept readable with anything else replaced, and a hash of the
 * whole name keeps two names that read alike apart.
 */
function clusterDir(cluster: string): string {
  const readable = cluster.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return `${readable}-${createHash('sha256').update(cluster).digest('hex').slice(0, 12)}`;
}
