import type { Clock } from '../../domain/ports/clock.js';
import type { LeaseOutcome, ScanLease, ScanStateStore } from '../../domain/ports/scan-state-store.js';
import type { ScanState } from '../../domain/orgdata/scan-state.js';
import type { RedisConnection } from '../redis/redis-connection.js';

/**
 * Takes the lease when there is none, it expired, or the holder already has
 * it. Times come from the adapter's clock (ARGV), never Redis's, so every
 * replica judges expiry the same way. {1, lease} when taken, {0, current}.
 */
const ACQUIRE = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local l = cjson.decode(cur)
  if l.holder ~= ARGV[1] and tonumber(ARGV[2]) <= tonumber(l.expiresAt) then return {0, cur} end
end
redis.call('SET', KEYS[1], ARGV[3])
return {1, ARGV[3]}
`;

/** Replaces the lease only while ARGV[1] holds it; RELEASE drops it likewise. */
const RENEW = `
local cur = redis.call('GET', KEYS[1])
if not cur or cjson.decode(cur).holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;
const RELEASE = `
local cur = redis.call('GET', KEYS[1])
if cur and cjson.decode(cur).holder == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

/**
 * The capability scan's progress and lease on Redis: one scan at a time
 * across every replica (the lease is checked and taken in one script), and
 * the progress any replica saved is what another resumes from. A Redis
 * failure is DependencyError('redis'). Given a `cluster` (svc serving
 * several), the slot and lease are that cluster's (`scan:cluster:<name>:…`).
 */
export class RedisScanStateStore implements ScanStateStore {
  private readonly scope: string[];

  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: Clock,
    cluster?: string,
  ) {
    this.scope = cluster === undefined ? ['scan'] : ['scan', 'cluster', cluster];
  }

  async load(): Promise<ScanState | undefined> {
    const text = await this.redis.run({ command: 'GET', target: 'scan', what: 'read the scan progress' }, (c) => c.get(this.redis.key(...this.scope, 'state')));
    return text ? (JSON.parse(text) as ScanState) : undefined;
  }

  async save(state: ScanState): Promise<void> {
    await this.redis.run({ command: 'SET', target: 'scan', what: 'save the scan progress' }, (c) =>
      c.set(this.redis.key(...this.scope, 'state'), JSON.stringify(state)),
    );
  }

  async acquire(holder: string, ttlMs: number): Promise<LeaseOutcome> {
    const now = this.clock.now();
    const [taken, lease] = (await this.redis.run({ command: 'EVAL', target: 'scan lease', what: 'take the scan lease' }, (c) =>
      c.eval(ACQUIRE, 1, this.leaseKey(), holder, String(now), leaseJson(holder, now + ttlMs)),
    )) as [number, string];
    const parsed = JSON.parse(lease) as ScanLease;
    return taken === 1 ? { acquired: true, lease: parsed } : { acquired: false, lease: parsed };
  }

  async renew(holder: string, ttlMs: number): Promise<boolean> {
    const renewed = await this.redis.run({ command: 'EVAL', target: 'scan lease', what: 'renew the scan lease' }, (c) =>
      c.eval(RENEW, 1, this.leaseKey(), holder, leaseJson(holder, this.clock.now() + ttlMs)),
    );
    return renewed === 1;
  }

  async release(holder: string): Promise<void> {
    await this.redis.run({ command: 'EVAL', target: 'scan lease', what: 'release the scan lease' }, (c) => c.eval(RELEASE, 1, this.leaseKey(), holder));
  }

  private leaseKey(): string {
    return this.redis.key(...this.scope, 'lease');
  }
}

/** Built here, not in Lua: cjson prints large numbers in exponent form and would round an epoch in milliseconds. */
function leaseJson(holder: string, expiresAt: number): string {
  return JSON.stringify({ holder, expiresAt } satisfies ScanLease);
}
