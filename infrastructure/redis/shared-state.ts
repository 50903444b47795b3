import path from 'node:path';
import type { Clock } from '../../domain/ports/clock.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import { FileChangeLedger } from '../ledger/file-change-ledger.js';
import { RedisChangeLedger } from '../ledger/redis-change-ledger.js';
import type { IngestedSourceStore } from '../../domain/ports/ingested-source-store.js';
import type { RateLimiter } from '../../domain/ports/rate-limiter.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { ScanStateStore } from '../../domain/ports/scan-state-store.js';
import { RedisScanStateStore } from '../scans/redis-scan-state-store.js';
import type { SharedState } from '../../domain/ports/shared-state.js';
import { NoopTracer } from '../tracing/noop-tracer.js';
import { MemoryRateLimiter } from '../rate-limit/memory-rate-limiter.js';
import { RedisRateLimiter } from '../rate-limit/redis-rate-limiter.js';
import { InMemoryIngestedSourceStore } from '../uploads/in-memory-ingested-source-store.js';
import { RedisIngestedSourceStore } from '../uploads/redis-ingested-source-store.js';
import type { Config } from '../config/config.js';
import { ledgerKeys } from '../config/ledger-config.js';
import { FileSessionStore } from '../sessions/file-session-store.js';
import { RedisConnection } from './redis-connection.js';
import { RedisSessionStore } from '../sessions/redis-session-store.js';
import { RedisRunStore } from '../runs/redis-run-store.js';
import { FileRunStore } from '../runs/file-run-store.js';
import type { RunStore } from '../../domain/ports/run-store.js';

export interface SharedStateAdapters {
  sessions: SessionStore;
  /** Runs of `Prefer: respond-async`: files for one process, Redis for replicas. */
  runs: RunStore;
  sharedState: SharedState;
  /** Uploaded sources: Redis behind an in-memory first level, or in memory only. */
  ingestedSources: IngestedSourceStore;
  /** Request counters: shared through Redis (falling back to this process), or this process only. */
  rateLimiter: RateLimiter;
  /** The capability scan's progress and lease on Redis; undefined: the file store under SVC_DATA_DIR. */
  scanStates?: ScanStateStore;
  /** With SVC_CLUSTERS: each cluster's scan progress and lease on Redis; undefined: files under SVC_DATA_DIR. */
  clusterScanStates?: (cluster: string) => ScanStateStore;
  /** The change ledger: one Redis stream for every replica, or a JSON-lines file under SVC_DATA_DIR/ledger. */
  ledger: ChangeLedger;
  /** Where the ledger is kept, for spans: `file` or `redis`. */
  ledgerStore: 'file' | 'redis';
  /** What /readyz should warn about in this deployment (each a sentence); empty when nothing. */
  warnings: string[];
  /** Closes what was opened (the Redis client); called on shutdown. */
  close(): Promise<void>;
  /** Resolves true once the shared store's connection is up (at once without Redis), false after `timeoutMs`; never throws. */
  ready(timeoutMs: number): Promise<boolean>;
}

export const UNSHARED_VECTORS =
  'REDIS_URL is set but QDRANT_URL is not: each replica keeps its own embedded vectors (patterns, policies, capabilities); set QDRANT_URL to share them';

/**
 * REDIS_URL set: sessions on Redis, shared by every replica. Unset: one
 * process, sessions in files under SVC_DATA_DIR (the default).
 */
export function createSharedState(config: Config, clock: Clock, logger: Logger, tracer?: Tracer): SharedStateAdapters {
  const ttlMs = config.sessions.ttlSeconds * 1000;
  if (config.redis.url === undefined) {
    const ledger = new FileChangeLedger({ dir: path.join(config.server.dataDir, 'ledger'), clock, logger, ...ledgerKeys(config.ledger) });
    return {
      sessions: new FileSessionStore({ dir: path.join(config.server.dataDir, 'sessions'), ttlMs, clock, logger }),
      runs: new FileRunStore(path.join(config.server.dataDir, 'runs'), { ttlMs: config.runs.ttlSeconds * 1000, clock, logger }),
      sharedState: { status: async () => ({ configured: false, connected: false, provider: 'none' }) },
      ingestedSources: new InMemoryIngestedSourceStore(config.uploads),
      rateLimiter: new MemoryRateLimiter(clock),
      ledger,
      ledgerStore: 'file',
      warnings: [],
      close: () => ledger.close(),
      ready: async () => true,
    };
  }
  // a disabled tracer would only add a call per command: not passed, like tracePorts leaves ports unwrapped
  const redis = new RedisConnection(config.redis.url, config.redis.prefix, logger, tracer instanceof NoopTracer ? undefined : tracer);
  const warnings: string[] = [];
  if (config.vector.store.kind !== 'qdrant') {
    warnings.push(UNSHARED_VECTORS);
    logger.warn(UNSHARED_VECTORS);
  }
  return {
    sessions: new RedisSessionStore(redis, { ttlMs, clock }),
    runs: new RedisRunStore(redis, { ttlMs: config.runs.ttlSeconds * 1000, clock, logger }),
    sharedState: { status: async () => ({ configured: true, provider: 'redis', ...(await redis.status()) }) },
    rateLimiter: new RedisRateLimiter(redis, new MemoryRateLimiter(clock), logger),
    scanStates: new RedisScanStateStore(redis, clock),
    clusterScanStates: (cluster) => new RedisScanStateStore(redis, clock, cluster),
    ledger: new RedisChangeLedger(redis, { clock, ...ledgerKeys(config.ledger) }),
    ledgerStore: 'redis',
    ingestedSources: new RedisIngestedSourceStore(
      redis,
      new InMemoryIngestedSourceStore(config.uploads),
      { ...config.uploads, ttlMs: config.uploads.ttlSeconds * 1000 },
      logger,
    ),
    warnings,
    close: () => redis.close(),
    ready: (timeoutMs) => redis.ready(timeoutMs),
  };
}
