import { randomBytes } from 'node:crypto';
import { ExecutionError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { PagePosition } from '../../domain/paging/newest-first-cursor.js';
import type { SessionPage, SessionQuery, SessionStore, UpdateResult } from '../../domain/ports/session-store.js';
import { kindOfSessionId } from '../../domain/sessions/session-cursor.js';
import { collectSessionPage } from '../../domain/sessions/session-page.js';
import { isSessionId, newSessionId } from '../../domain/sessions/session-id.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import type { RedisConnection } from '../redis/redis-connection.js';

export interface RedisSessionStoreOptions {
  ttlMs: number;
  clock: Clock;
  random?: () => string;
  maxStateBytes?: number;
}

/**
 * The revision check, atomic on the server: the new record is written only if
 * the stored one still has the expected revision. Returns {0} when absent,
 * {1, current} on a stale revision, {2} when written.
 */
const UPDATE_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
if not cur then return {0} end
local ok, obj = pcall(cjson.decode, cur)
if not ok or tonumber(obj.revision) ~= tonumber(ARGV[1]) then return {1, cur} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
redis.call('ZADD', KEYS[2], 'NX', ARGV[6], ARGV[5])
return {2}
`;

/**
 * A create with its listing entries, in one step: the record only if the id
 * is free, its place by creation time and by expiry, and the entries of up to
 * 100 sessions whose expiry has passed go (so the indexes stay as bounded as
 * the sessions). KEYS: record, by-created, by-expiry. ARGV: record, ttl,
 * createdAt, expiresAt, id, now. 1 when created.
 */
const CREATE_SCRIPT = `
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 0 end
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[6], 'LIMIT', 0, 100)
if #gone > 0 then
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('ZREM', KEYS[3], unpack(gone))
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
return 1
`;

/** Index entries read per round trip while listing. */
const INDEX_BATCH = 200;

/**
 * SessionStore on Redis, for several replicas: one JSON string per session
 * under `<prefix>session:<kind>:<id>`, expiring by Redis TTL (and by the
 * record's own `expiresAt`, so every replica agrees on the instant). Updates
 * run a Lua script, so two replicas updating one session at once cannot both
 * win. Listing reads two sorted sets kept by the same scripts: ids by
 * creation time (`sessions:by-created`) and by expiry (`sessions:by-expiry`,
 * whose passed entries each create prunes). A Redis failure is DependencyError('redis').
 */
export class RedisSessionStore implements SessionStore {
  private readonly random: () => string;
  private readonly maxStateBytes: number;

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisSessionStoreOptions,
  ) {
    this.random = options.random ?? (() => randomBytes(16).toString('hex'));
    this.maxStateBytes = options.maxStateBytes ?? 1024 * 1024;
  }

  async create<S>(kind: SessionKind, state: S): Promise<Session<S>> {
    const now = this.options.clock.now();
    for (let attempt = 0; attempt < 3; attempt++) {
      const session: Session<S> = {
        id: newSessionId(kind, this.random()),
        kind,
        createdAt: now,
        updatedAt: now,
        expiresAt: now + this.options.ttlMs,
        revision: 1,
        state,
      };
      const text = this.encode(session);
      const written = await this.redis.run({ command: 'EVAL', target: 'session', what: 'create a session' }, (c) =>
        c.eval(
          CREATE_SCRIPT,
          3,
          this.key(kind, session.id),
          this.byCreated,
          this.byExpiry,
          text,
          String(this.options.ttlMs),
          String(now),
          String(session.expiresAt),
          session.id,
          String(now),
        ),
      );
      if (written === 1) return JSON.parse(text) as Session<S>;
    }
    throw new ExecutionError('Could not allocate a unique session id');
  }

  async get<S>(kind: SessionKind, id: string): Promise<Session<S> | undefined> {
    if (!isSessionId(id, kind)) return undefined;
    const key = this.key(kind, id);
    const text = await this.redis.run({ command: 'GET', target: 'session', what: 'read a session' }, (c) => c.get(key));
    const session = this.decode<S>(kind, text);
    // past its expiresAt by this replica's clock but not yet by Redis's TTL: removed now
    if (text && !session) await this.redis.run({ command: 'DEL', target: 'session', what: 'remove an expired session' }, (c) => c.del(key));
    return session;
  }

  async update<S>(kind: SessionKind, id: string, expectedRevision: number, state: S): Promise<UpdateResult<S>> {
    if (!isSessionId(id, kind)) return { conflict: true, current: undefined };
    const current = await this.get<S>(kind, id);
    if (!current) return { conflict: true, current: undefined };
    if (current.revision !== expectedRevision) return { conflict: true, current };
    const now = this.options.clock.now();
    const next: Session<S> = { ...current, state, revision: expectedRevision + 1, updatedAt: now, expiresAt: now + this.options.ttlMs };
    const text = this.encode(next);
    const result = (await this.redis.run({ command: 'EVAL', target: 'session', what: 'update a session' }, (c) =>
      c.eval(
        UPDATE_SCRIPT,
        3,
        this.key(kind, id),
        this.byCreated,
        this.byExpiry,
        String(expectedRevision),
        text,
        String(this.options.ttlMs),
        String(next.expiresAt),
        id,
        String(current.createdAt),
      ),
    )) as [number, string?];
    if (result[0] === 2) return { conflict: false, session: JSON.parse(text) as Session<S> };
    return { conflict: true, current: result[0] === 1 ? this.decode<S>(kind, result[1] ?? null) : undefined };
  }

  /** Newest first from the creation index; a record gone from Redis leaves the index once the page is read. */
  async list<S>(query: SessionQuery<S>): Promise<SessionPage<S>> {
    const gone: string[] = [];
    const load = async (ids: string[]) => {
      const texts = await this.redis.run({ command: 'MGET', target: 'session', what: 'read sessions' }, (c) =>
        c.mget(...ids.map((id) => this.key(kindOfSessionId(id)!, id))),
      );
      return texts.map((text, i) => {
        if (text === null) gone.push(ids[i]);
        return this.decode<S>(kindOfSessionId(ids[i])!, text);
      });
    };
    const page = await collectSessionPage(this.candidates(query.after), load, query);
    // removed after the scan, whose offsets would shift under it
    if (gone.length)
      await this.redis.run({ command: 'ZREM', target: 'session', what: 'forget expired sessions' }, (c) =>
        c
          .multi()
          .zrem(this.byCreated, ...gone)
          .zrem(this.byExpiry, ...gone)
          .exec(),
      );
    return page;
  }

  private async *candidates(after: PagePosition | undefined): AsyncIterable<PagePosition[]> {
    const max = after ? String(Date.parse(after.createdAt)) : '+inf';
    for (let offset = 0; ; offset += INDEX_BATCH) {
      const flat = await this.redis.run({ command: 'ZREVRANGEBYSCORE', target: 'session', what: 'list sessions' }, (c) =>
        c.zrevrangebyscore(this.byCreated, max, '-inf', 'WITHSCORES', 'LIMIT', offset, INDEX_BATCH),
      );
      const batch: PagePosition[] = [];
      for (let i = 0; i < flat.length; i += 2) batch.push({ id: flat[i], createdAt: new Date(Number(flat[i + 1])).toISOString() });
      if (batch.length) yield batch;
      if (batch.length < INDEX_BATCH) return;
    }
  }

  private get byCreated(): string {
    return this.redis.key('sessions', 'by-created');
  }

  private get byExpiry(): string {
    return this.redis.key('sessions', 'by-expiry');
  }

  private key(kind: SessionKind, id: string): string {
    return this.redis.key('session', kind, id);
  }

  private encode<S>(session: Session<S>): string {
    let text: string | undefined;
    try {
      text = JSON.stringify(session);
    } catch {
      throw new ExecutionError('Session state is not serialisable');
    }
    const bytes = Buffer.byteLength(text);
    if (bytes > this.maxStateBytes) throw new ExecutionError(`Session state is too large: ${bytes} bytes serialised, the limit is ${this.maxStateBytes}`);
    return text;
  }

  private decode<S>(kind: SessionKind, text: string | null): Session<S> | undefined {
    if (!text) return undefined;
    let session: Session<S>;
    try {
      session = JSON.parse(text) as Session<S>;
    } catch {
      return undefined;
    }
    if (session.kind !== kind || !(this.options.clock.now() <= session.expiresAt)) return undefined;
    return session;
  }
}
