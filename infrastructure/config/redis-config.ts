import { ConfigError, str, type Env } from './env-parsers.js';

/** Shared state for several replicas; `url` undefined keeps everything in this process and its data folder. */
export interface RedisConfig {
  /** REDIS_URL: redis:// or rediss:// (TLS), with optional credentials and database number. */
  url?: string;
  /** SVC_REDIS_PREFIX: key prefix, so several installations can share one Redis. */
  prefix: string;
}

export function parseRedisConfig(env: Env): RedisConfig {
  const url = str(env, 'REDIS_URL');
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      // the value may carry a password: never echoed
      throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
    if (!parsed.hostname) throw new ConfigError('REDIS_URL', 'must name a host');
    if (parsed.pathname && !/^\/?\d*$/.test(parsed.pathname)) throw new ConfigError('REDIS_URL', 'path must be a database number, e.g. redis://host:6379/0');
  }
  const prefix = str(env, 'SVC_REDIS_PREFIX') ?? 'svc:';
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(prefix)) throw new ConfigError('SVC_REDIS_PREFIX', 'must be 1 to 64 of A-Z a-z 0-9 _ . : -');
  return { url, prefix };
}
