import { MAX_UPLOAD_DECODED_BYTES } from '../../domain/uploads/upload-limits.js';
import { int, type Env } from './env-parsers.js';

export interface UploadsConfig {
  /** SVC_SOURCES_MAX: most ingested sources cached at once. */
  maxSources: number;
  /** SVC_SOURCES_MAX_BYTES: most decoded bytes cached at once, over all sources. */
  maxBytes: number;
  /** SVC_SOURCES_TTL: seconds an uploaded source is kept in Redis (REDIS_URL); in memory, sources live until evicted or restart. */
  ttlSeconds: number;
}

/** 100 sources; 32 MiB, room for 128 uploads at the 256 KiB decoded limit. */
export const DEFAULT_SOURCES_MAX = 100;
export const DEFAULT_SOURCES_MAX_BYTES = 32 * 1024 * 1024;

export function parseUploadsConfig(env: Env): UploadsConfig {
  return {
    maxSources: int(env, 'SVC_SOURCES_MAX', DEFAULT_SOURCES_MAX, 1, 1_000_000),
    // At least one manifest at the decoded limit must fit, or a valid upload could never be cached.
    maxBytes: int(env, 'SVC_SOURCES_MAX_BYTES', DEFAULT_SOURCES_MAX_BYTES, MAX_UPLOAD_DECODED_BYTES, 2 ** 40),
    ttlSeconds: int(env, 'SVC_SOURCES_TTL', 86400, 60, 31536000),
  };
}
