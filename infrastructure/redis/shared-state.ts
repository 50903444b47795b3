import path from 'node:path';
import type { Clock } from '../../domain/ports/clock.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { SharedState } from '../../domain/ports/shared-state.js';
import type { Config } from '../config/config.js';
import { FileSessionStore } from '../sessions/file-session-store.js';
import { RedisConnection } from './redis-connection.js';
import { RedisSessionStore } from './redis-session-store.js';

export interface SharedStateAdapters {
  sessions: SessionStore;
  sharedState: SharedState;
  /** Closes what was opened (the Redis client); called on shutdown. */
  close(): Promise<void>;
}

/**
 * REDIS_URL set: sessions on Redis, shared by every replica. Unset: one
 * process, sessions in files under SVC_DATA_DIR (the default).
 */
export function createSharedState(config: Config, clock: Clock, logger: Logger): SharedStateAdapters {
  const ttlMs = config.sessions.ttlSeconds * 1000;
  if (config.redis.url === undefined) {
    return {
      sessions: new FileSessionStore({ dir: path.join(config.server.dataDir, 'sessions'), ttlMs, clock, logger }),
      sharedState: { status: async () => ({ configured: false, connected: false, provider: 'none' }) },
      close: async () => undefined,
    };
  }
  const redis = new RedisConnection(config.redis.url, config.redis.prefix, logger);
  if (config.vector.store.kind !== 'qdrant') {
    logger.warn('REDIS_URL is set but QDRANT_URL is not: each replica keeps its own embedded vectors (patterns, policies, capabilities); set QDRANT_URL to share them');
  }
  return {
    sessions: new RedisSessionStore(redis, { ttlMs, clock }),
    sharedState: { status: async () => ({ configured: true, provider: 'redis', ...(await redis.status()) }) },
    close: () => redis.close(),
  };
}
