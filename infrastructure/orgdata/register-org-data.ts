import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { AnalyseCapability } from '../../application/orgdata/analyse-capability.js';
import { CollectionOperations, DocumentOperations } from '../../application/orgdata/document-operations.js';
import { ManageOrgData } from '../../application/orgdata/manage-org-data.js';
import { OrgCollection } from '../../application/orgdata/org-collection.js';
import { ScanCapabilities } from '../../application/orgdata/scan-capabilities.js';
import type { ScanStateStore } from '../../domain/ports/scan-state-store.js';
import type { Config } from '../config/config.js';
import { FileScanStateStore } from '../scans/file-scan-state-store.js';
import { TOKENS } from '../tokens.js';

/** Tokens per kind of a scan: a schema summary, the answer and one retry fit well within it. */
const MAX_TOKENS_PER_KIND = 100_000;
const MAX_OUTPUT_TOKENS = 2_000;

const rebuild = (dataType: string, then: string) => `manageOrgData {"dataType":"${dataType}","operation":"deleteAll","confirm":true}, then ${then}`;

/**
 * manageOrgData's parts over the container's (traced) ports: the three
 * collections, the capability scan with its state store under
 * `$SVC_DATA_DIR/scans`, and the tool's use case.
 */
export function registerOrgData(c: DependencyContainer, config: Config, scanStates?: ScanStateStore): ManageOrgData {
  const store = c.resolve(TOKENS.VectorStore);
  const embedder = c.resolve(TOKENS.Embedder);
  const clock = c.resolve(TOKENS.Clock);
  const patterns = new OrgCollection('patterns', store, embedder, rebuild('pattern', 'create the patterns again'));
  const policies = new OrgCollection('policies', store, embedder, rebuild('policy', 'create the policies again'));
  const capabilities = new OrgCollection(
    'capabilities',
    store,
    embedder,
    rebuild('capabilities', 'manageOrgData {"dataType":"capabilities","operation":"scan"}'),
  );
  const states = scanStates ?? new FileScanStateStore({ dir: path.join(config.server.dataDir, 'scans'), clock, logger: c.resolve(TOKENS.Logger) });
  c.register(TOKENS.ScanStateStore, { useValue: states });
  const analyse = new AnalyseCapability(c.resolve(TOKENS.ClusterReader), c.resolve(TOKENS.LlmProvider), capabilities, {
    timeoutMs: Math.min(config.orgData.scanKindTimeoutMs, config.ai.timeoutMs),
    maxTokens: Math.min(MAX_TOKENS_PER_KIND, config.ai.maxTokens),
    maxOutputTokens: MAX_OUTPUT_TOKENS,
  });
  const scan = new ScanCapabilities({
    cluster: c.resolve(TOKENS.ClusterReader),
    llm: c.resolve(TOKENS.LlmProvider),
    collection: capabilities,
    analyse,
    states,
    clock,
    tracer: c.resolve(TOKENS.Tracer),
    logger: c.resolve(TOKENS.Logger),
    holder: `${hostname()}-${process.pid}-${randomBytes(6).toString('hex')}`,
    newScanId: () => `scan_${randomBytes(16).toString('hex')}`,
    settings: { batchSize: config.orgData.scanBatchSize, leaseMs: config.orgData.scanLeaseMs },
  });
  c.register(TOKENS.ScanCapabilities, { useValue: scan });
  const newId = () => randomUUID();
  return new ManageOrgData(
    new DocumentOperations('pattern', patterns, clock, newId),
    new DocumentOperations('policy', policies, clock, newId),
    new CollectionOperations('capabilities', capabilities),
    scan,
  );
}

const watchers = new WeakMap<DependencyContainer, () => void>();

/**
 * Background work of a started server: resumes a capability scan a previous
 * run left unfinished. With replicas (REDIS_URL), it also looks again every
 * lease period, so a scan whose replica died mid-way is finished by another
 * once the dead replica's lease expires.
 */
export async function resumeBackgroundWork(c: DependencyContainer): Promise<void> {
  const scan = c.resolve(TOKENS.ScanCapabilities);
  const logger = c.resolve(TOKENS.Logger);
  const config = c.resolve(TOKENS.Config);
  if (config.redis.url !== undefined && !watchers.has(c)) {
    // set up before the first look, which may fail while the Redis client still connects
    const clock = c.resolve(TOKENS.Clock);
    let cancel = () => {};
    const watch = () => {
      cancel = clock.schedule(config.orgData.scanLeaseMs, () => {
        scan
          .resume()
          .then(
            (o) => o === 'resumed' && logger.info('took over an interrupted capability scan'),
            (e: unknown) => logger.warn('checking for an interrupted capability scan failed', { error: e instanceof Error ? e.message : String(e) }),
          )
          .finally(() => watchers.has(c) && watch());
      });
    };
    watchers.set(c, () => cancel());
    watch();
  }
  const outcome = await scan.resume();
  if (outcome !== 'none') logger.info('interrupted capability scan', { outcome });
}

/** Stops the background scan (its unfinished kinds stay pending for the next start) and releases its lease. */
export function stopBackgroundWork(c: DependencyContainer): Promise<void> {
  watchers.get(c)?.();
  watchers.delete(c);
  return c.resolve(TOKENS.ScanCapabilities).stop();
}
