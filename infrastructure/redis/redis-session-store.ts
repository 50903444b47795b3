import { randomBytes } from 'node:crypto';
import { ExecutionError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { SessionStore, UpdateResult } from '../../domain/ports/session-store.js';
import { isSessionId, newSessionId } from '../../domain/sessions/session-id.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import type { RedisConnection } from './redis-connection.js';

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
return {2}
`;

/**
 * SessionStore on Redis, for several replicas: one JSON string per session
 * under `<prefix>session:<kind>:<id>`, expiring by Redis TTL (and by the
 * record's own `expiresAt`, so every replica agrees on the instant). Updates
 * run a Lua script, so two replicas updating one session at once cannot both
 * win. A Redis failure is DependencyError('redis').
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
      const written = await this.redis.run({ command: 'SET', target: 'session', what: 'create a session' }, (c) =>
        c.set(this.key(kind, session.id), text, 'PX', this.options.ttlMs, 'NX'),
      );
      if (written === 'OK') return JSON.parse(text) as Session<S>;
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
      c.eval(UPDATE_SCRIPT, 1, this.key(kind, id), String(expectedRevision), text, String(this.options.ttlMs)),
    )) as [number, string?];
    if (result[0] === 2) return { conflict: false, session: JSON.parse(text) as Session<S> };
    return { conflict: true, current: result[0] === 1 ? this.decode<S>(kind, result[1] ?? null) : undefined };
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
