import type { Redis as RedisClient } from 'ioredis';
import type { Clock } from '../../domain/ports/clock.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { CreateResult, RunChange, RunPage, RunQuery, RunSignal, RunStore } from '../../domain/ports/run-store.js';
import { isAfterCursor, pageCursor, readCursor } from '../../domain/runs/run-cursor.js';
import { callerKey, isFinished, isRunId, MAX_RUN_EVENTS, type RunEvent, type RunRecord, type RunStatus } from '../../domain/runs/run.js';
import type { RedisConnection } from '../redis/redis-connection.js';

/*
 * One hash per run (`run:<id>`), each field of the record its own JSON value,
 * so the status check and the change are one Lua script with no JSON decoding
 * on the server; events in a list (`run:<id>:ev`), appended and published in
 * one script, so their ids follow the list; listing by sorted sets of creation
 * time (all, per caller); a set of each caller's active runs.
 */

/** KEYS: hash, active set. ARGV: ttl, from count, from..., field/value pairs. 1 when changed. */
const TRANSITION = `
local s = redis.call('HGET', KEYS[1], 'status')
if not s then return 0 end
local n = tonumber(ARGV[2])
local ok = false
for i = 1, n do if '"' .. ARGV[2 + i] .. '"' == s then ok = true end end
if not ok then return 0 end
for i = 3 + n, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local to = redis.call('HGET', KEYS[1], 'status')
if to ~= '"queued"' and to ~= '"running"' then redis.call('SREM', KEYS[2], KEYS[3]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[4], ARGV[1])
return 1
`;

/**
 * A create, with the per-caller limit checked in the same step, so replicas
 * racing for a caller's last slot cannot both win. Counts the caller's
 * active set as countActive does (queued or running, its lease not lapsed),
 * dropping the ids of runs that ended or are gone. KEYS: hash, all runs,
 * the caller's runs, the caller's active set. ARGV: ttl, score, horizon,
 * runId, max (-1: no limit), now, the hash key prefix, then field/value
 * pairs. -1 when created, else the active count that refused it.
 */
const CREATE = `
local max = tonumber(ARGV[5])
if max >= 0 then
  local n = 0
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[4])) do
    local f = redis.call('HMGET', ARGV[7] .. id, 'status', 'leaseUntil')
    if f[1] == '"queued"' or f[1] == '"running"' then
      if not f[2] or tonumber(f[2]) == nil or tonumber(f[2]) >= tonumber(ARGV[6]) then n = n + 1 end
    else
      redis.call('SREM', KEYS[4], id)
    end
  end
  if n >= max then return n end
end
for i = 8, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
redis.call('SADD', KEYS[4], ARGV[4])
redis.call('PEXPIRE', KEYS[4], ARGV[1])
return -1
`;

/** KEYS: hash, events list. ARGV: event JSON without id (starts with '{'), max, isDone, ttl, channel. The stored event, or false. */
const APPEND = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local n = redis.call('LLEN', KEYS[2])
if n >= tonumber(ARGV[2]) and ARGV[3] ~= '1' then return false end
local e = '{"id":' .. (n + 1) .. ',' .. string.sub(ARGV[1], 2)
redis.call('RPUSH', KEYS[2], e)
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], '{"type":"event","event":' .. e .. '}')
return e
`;

/** KEYS: hash. ARGV: owner, leaseUntil. */
const RENEW = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
local s = redis.call('HGET', KEYS[1], 'status')
if s ~= '"queued"' and s ~= '"running"' then return 0 end
redis.call('HSET', KEYS[1], 'leaseUntil', ARGV[2])
return 1
`;

const FIELDS = [
  'runId',
  'tool',
  'caller',
  'cluster',
  'status',
  'createdAt',
  'startedAt',
  'finishedAt',
  'result',
  'error',
  'cancelRequested',
  'owner',
  'leaseUntil',
] as const;

/**
 * RunStore on Redis, for several replicas: a run started on one is shown,
 * streamed (pub/sub) and cancelled from any other. Records expire by Redis
 * TTL `ttlMs` after their last change. A Redis failure is DependencyError('redis').
 */
export class RedisRunStore implements RunStore {
  private subscriber?: Promise<RedisClient>;
  private readonly listeners = new Map<string, Set<(s: RunSignal) => void>>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: { ttlMs: number; clock: Clock; logger: Logger },
  ) {}

  async create(run: RunRecord, maxActive?: number): Promise<CreateResult> {
    const who = callerKey(run.caller);
    const now = this.options.clock.now();
    const pairs = Object.entries(this.encode(run)).flat();
    const answer = await this.redis.run({ command: 'EVAL', target: 'run', what: 'create a run' }, (c) =>
      c.eval(
        CREATE,
        4,
        this.key(run.runId),
        this.redis.key('runs'),
        this.byCaller(who),
        this.activeOf(who),
        this.options.ttlMs,
        Date.parse(run.createdAt),
        now - this.options.ttlMs,
        run.runId,
        maxActive ?? -1,
        now,
        this.key(''),
        ...pairs,
      ),
    );
    return answer === -1 ? { created: true } : { created: false, active: Number(answer) };
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    if (!isRunId(runId)) return undefined;
    const h = await this.redis.run({ command: 'HGETALL', target: 'run', what: 'read a run' }, (c) => c.hgetall(this.key(runId)));
    return this.decode(h);
  }

  async transition(runId: string, from: readonly RunStatus[], change: RunChange): Promise<RunRecord | undefined> {
    if (!isRunId(runId)) return undefined;
    const current = await this.get(runId);
    if (!current) return undefined;
    const pairs = Object.entries(change).flatMap(([k, v]) => [k, JSON.stringify(v)]);
    const changed = await this.redis.run({ command: 'EVAL', target: 'run', what: 'change a run' }, (c) =>
      c.eval(
        TRANSITION,
        4,
        this.key(runId),
        this.activeOf(callerKey(current.caller)),
        runId,
        this.events_(runId),
        this.options.ttlMs,
        from.length,
        ...from,
        ...pairs,
      ),
    );
    return changed === 1 ? this.get(runId) : undefined;
  }

  async append(runId: string, event: Omit<RunEvent, 'id'>): Promise<RunEvent | undefined> {
    if (!isRunId(runId)) return undefined;
    const json = JSON.stringify({ type: event.type, at: event.at, data: event.data });
    const stored = await this.redis.run({ command: 'EVAL', target: 'run', what: 'record a run event' }, (c) =>
      c.eval(APPEND, 2, this.key(runId), this.events_(runId), json, MAX_RUN_EVENTS, event.type === 'done' ? '1' : '0', this.options.ttlMs, this.channel(runId)),
    );
    return typeof stored === 'string' ? (JSON.parse(stored) as RunEvent) : undefined;
  }

  async events(runId: string, afterId: number): Promise<RunEvent[]> {
    if (!isRunId(runId)) return [];
    const list = await this.redis.run({ command: 'LRANGE', target: 'run', what: 'read run events' }, (c) =>
      c.lrange(this.events_(runId), Math.max(0, afterId), -1),
    );
    return list.map((e) => JSON.parse(e) as RunEvent).filter((e) => e.id > afterId);
  }

  async subscribe(runId: string, listener: (signal: RunSignal) => void): Promise<() => void> {
    const sub = await this.subscriberClient();
    const channel = this.channel(runId);
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.redis.run({ command: 'SUBSCRIBE', target: 'run', what: 'follow a run' }, () => sub.subscribe(channel));
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(channel) === set) {
        this.listeners.delete(channel);
        void sub.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  async requestCancel(runId: string): Promise<void> {
    if (!isRunId(runId)) return;
    await this.redis.run({ command: 'MULTI', target: 'run', what: 'cancel a run' }, (c) =>
      c.multi().hset(this.key(runId), 'cancelRequested', 'true').publish(this.channel(runId), '{"type":"cancel"}').exec(),
    );
  }

  async list(query: RunQuery): Promise<RunPage> {
    const index = query.callerKey ? this.byCaller(query.callerKey) : this.redis.key('runs');
    const after = readCursor(query.cursor);
    const runs: RunRecord[] = [];
    const max: string = after ? String(Date.parse(after.createdAt)) : '+inf';
    let offset = 0;
    for (let pages = 0; pages < 50 && runs.length <= query.limit; pages++) {
      const ids = await this.redis.run({ command: 'ZREVRANGEBYSCORE', target: 'run', what: 'list runs' }, (c) =>
        c.zrevrangebyscore(index, max, '-inf', 'LIMIT', offset, 200),
      );
      if (ids.length === 0) break;
      const hashes = await this.redis.run({ command: 'HGETALL', target: 'run', what: 'read runs' }, async (c) => {
        const p = c.pipeline();
        for (const id of ids) p.hgetall(this.key(id));
        return ((await p.exec()) ?? []).map(([, h]) => h as Record<string, string>);
      });
      const gone = ids.filter((_, i) => Object.keys(hashes[i] ?? {}).length === 0);
      if (gone.length) await this.redis.run({ command: 'ZREM', target: 'run', what: 'forget expired runs' }, (c) => c.zrem(index, ...gone));
      for (const h of hashes) {
        const r = this.decode(h);
        if (
          !r ||
          !isAfterCursor(r, after) ||
          (query.tool && r.tool !== query.tool) ||
          (query.cluster && r.cluster !== query.cluster) ||
          (query.status && r.status !== query.status)
        )
          continue;
        runs.push(r);
      }
      offset += ids.length - gone.length;
    }
    const page = runs.slice(0, query.limit);
    return { runs: page, ...(runs.length > query.limit ? { nextCursor: pageCursor(page.at(-1)!) } : {}) };
  }

  async countActive(key: string): Promise<number> {
    const set = this.activeOf(key);
    const ids = await this.redis.run({ command: 'SMEMBERS', target: 'run', what: 'count active runs' }, (c) => c.smembers(set));
    let n = 0;
    const done: string[] = [];
    for (const id of ids) {
      const r = await this.get(id);
      if (r && !isFinished(r.status) && (r.leaseUntil === undefined || r.leaseUntil >= this.options.clock.now())) n++;
      else if (!r || isFinished(r.status)) done.push(id);
    }
    if (done.length) await this.redis.run({ command: 'SREM', target: 'run', what: 'forget ended runs' }, (c) => c.srem(set, ...done));
    return n;
  }

  async renewLease(runIds: readonly string[], owner: string, leaseUntil: number): Promise<void> {
    if (runIds.length === 0) return;
    await this.redis.run({ command: 'EVAL', target: 'run', what: 'renew run leases' }, async (c) => {
      const p = c.pipeline();
      for (const id of runIds) p.eval(RENEW, 1, this.key(id), JSON.stringify(owner), JSON.stringify(leaseUntil));
      const failed = ((await p.exec()) ?? []).find(([e]) => e);
      if (failed) throw failed[0];
    });
  }

  async close(): Promise<void> {
    this.listeners.clear();
    const sub = this.subscriber;
    this.subscriber = undefined;
    if (sub) (await sub.catch(() => undefined))?.disconnect(false);
  }

  private subscriberClient(): Promise<RedisClient> {
    this.subscriber ??= (async () => {
      const sub = this.redis.client.duplicate({ enableOfflineQueue: true, lazyConnect: false });
      sub.on('error', () => undefined); // the main connection logs Redis being down
      sub.on('message', (channel: string, message: string) => {
        let signal: RunSignal;
        try {
          signal = JSON.parse(message) as RunSignal;
        } catch {
          return;
        }
        for (const l of [...(this.listeners.get(channel) ?? [])]) l(signal);
      });
      return sub;
    })();
    return this.subscriber;
  }

  private encode(run: RunRecord): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of FIELDS) if (run[f] !== undefined) out[f] = JSON.stringify(run[f]);
    return out;
  }

  private decode(h: Record<string, string> | null | undefined): RunRecord | undefined {
    if (!h || !h.runId || !h.status) return undefined;
    const out: Record<string, unknown> = {};
    for (const f of FIELDS) if (h[f] !== undefined) out[f] = JSON.parse(h[f]);
    return out as unknown as RunRecord;
  }

  private key = (id: string) => this.redis.key('run', id);
  private events_ = (id: string) => this.redis.key('run', id, 'ev');
  private channel = (id: string) => this.redis.key('run', id, 'ch');
  private byCaller = (key: string) => this.redis.key('runs', 'c', Buffer.from(key).toString('base64url'));
  private activeOf = (key: string) => this.redis.key('runs', 'active', Buffer.from(key).toString('base64url'));
}
