import type { Logger } from '../../domain/ports/logger.js';
import type { RateLimiter, RateVerdict } from '../../domain/ports/rate-limiter.js';
import type { MemoryRateLimiter } from './memory-rate-limiter.js';
import type { RedisConnection } from '../redis/redis-connection.js';

/** INCR with the window's expiry set by the first hit; returns {count, ms left}. */
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}
`;

/**
 * Counters shared by every replica, so a limit is per caller, not per caller
 * per replica. While Redis fails, counting falls back to this replica's own
 * counters (logged once per outage) and comes back to Redis by itself.
 */
export class RedisRateLimiter implements RateLimiter {
  private degraded = false;

  constructor(
    private readonly redis: RedisConnection,
    private readonly local: MemoryRateLimiter,
    private readonly logger: Logger,
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateVerdict> {
    try {
      const [count, ttl] = (await this.redis.run({ command: 'EVAL', target: 'rl', what: 'count a request' }, (c) =>
        c.eval(HIT_SCRIPT, 1, this.redis.key('rl', key), String(windowMs)),
      )) as [number, number];
      if (this.degraded) this.logger.info('rate limiting is shared through Redis again');
      this.degraded = false;
      return { allowed: count <= limit, remaining: Math.max(0, limit - count), resetMs: ttl };
    } catch (e) {
      if (!this.degraded) this.logger.warn('rate limiting falls back to per-replica counters while Redis is unavailable', { error: (e as Error).message });
      this.degraded = true;
      return this.local.hit(key, limit, windowMs);
    }
  }
}
