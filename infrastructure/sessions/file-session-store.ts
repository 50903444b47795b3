import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { DependencyError, DomainError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { SessionPage, SessionQuery, SessionStore, UpdateResult } from '../../domain/ports/session-store.js';
import { kindOfSessionId } from '../../domain/sessions/session-cursor.js';
import { collectSessionPage, inOrder } from '../../domain/sessions/session-page.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import { isSessionId, newSessionId } from '../../domain/sessions/session-id.js';
import { KeyedMutex } from './keyed-mutex.js';
import { SessionIndex } from './session-index.js';
import { removeFile, writeFileDurably } from '../fs/durable-file.js';
import { CorruptSessionFileError, readFileBounded } from './session-files.js';
import { decodeSession, encodeSession, serializeState } from './session-record.js';
import { sweepSessions, type SweepTarget } from './session-sweep.js';

export interface FileSessionStoreOptions {
  /** Root of the store, `$SVC_DATA_DIR/sessions`; created (0700) on the first create. */
  dir: string;
  /** Lifetime of a session after its create or last update, in milliseconds. */
  ttlMs: number;
  clock: Clock;
  /** 32 lowercase hex digits from a CSPRNG; default crypto.randomBytes(16). */
  random?: () => string;
  logger?: Logger;
  /** Largest serialised state accepted; default 1 MiB. */
  maxStateBytes?: number;
}

export const DEFAULT_MAX_STATE_BYTES = 1024 * 1024;
/** The sweep runs at most this often (by the injected clock), started by a create. */
export const SWEEP_INTERVAL_MS = 60_000;

/**
 * SessionStore on the local filesystem: one JSON file per session at
 * `<dir>/<kind>/<id>.json`, directories 0700, files 0600.
 *
 * Guarantees, and their limits:
 * - Single replica: the revision check is atomic within this process only (a
 *   per-id lock around read, compare and write). Two processes sharing the
 *   directory could both win an update; run one replica per data directory.
 * - Atomic writes: temp file in the same directory, fsync, rename, fsync of the
 *   directory. A crash leaves the old or the new file, never a torn one; a stray
 *   temp file is never read and is removed by the sweep. A resolved create or
 *   update is on disk, so a new instance on the same directory sees it.
 * - An id is validated before any path is built: a malformed id never reaches
 *   the filesystem.
 * - Expired sessions are removed when read, and by a sweep (at most once a
 *   minute, started by create, bounded per run, never failing the create).
 * - A corrupt file reads as absent (logged); an I/O failure is
 *   DependencyError('sessions'); a state over `maxStateBytes` is ExecutionError.
 */
export class FileSessionStore implements SessionStore {
  private readonly locks = new KeyedMutex();
  private readonly random: () => string;
  private readonly maxStateBytes: number;
  private readonly sweepTarget: SweepTarget;
  private readonly index: SessionIndex;
  private lastSweepAt = -Infinity;
  private sweeping: Promise<unknown> | undefined;

  constructor(private readonly options: FileSessionStoreOptions) {
    this.random = options.random ?? (() => randomBytes(16).toString('hex'));
    this.maxStateBytes = options.maxStateBytes ?? DEFAULT_MAX_STATE_BYTES;
    this.index = new SessionIndex(options.dir);
    this.sweepTarget = {
      dir: options.dir,
      ttlMs: options.ttlMs,
      now: () => options.clock.now(),
      logger: options.logger,
      cursors: new Map(),
      removeIfGone: (kind, id) => this.locks.run(id, () => this.removeIfGone(kind, id)),
    };
  }

  async create<S>(kind: SessionKind, state: S): Promise<Session<S>> {
    const stateJson = serializeState(state, this.maxStateBytes);
    const session = await this.guard('create', async () => {
      await mkdir(path.join(this.options.dir, kind), { recursive: true, mode: 0o700 });
      for (let attempt = 0; attempt < 3; attempt++) {
        const id = newSessionId(kind, this.random());
        const created = await this.locks.run(id, async () => {
          // a fresh id must not overwrite: only a broken random source could repeat one
          if ((await this.readFile(kind, id)) !== undefined) return undefined;
          const now = this.options.clock.now();
          const meta = { id, kind, createdAt: now, updatedAt: now, expiresAt: now + this.options.ttlMs, revision: 1 };
          await writeFileDurably(this.file(kind, id), encodeSession(meta, stateJson));
          this.index.add(id, now);
          return { ...meta, state: JSON.parse(stateJson) as S };
        });
        if (created) return created;
      }
      throw new DependencyError('sessions', 'Session store could not draw a fresh session id: the random source repeats itself');
    });
    this.maybeSweep();
    return session;
  }

  async get<S>(kind: SessionKind, id: string): Promise<Session<S> | undefined> {
    if (!isSessionId(id, kind)) return undefined;
    return this.guard('read', async () => {
      const session = await this.read<S>(kind, id);
      if (!session || !this.expired(session)) return session;
      await this.locks.run(id, () => this.removeIfGone(kind, id));
      return undefined;
    });
  }

  async update<S>(kind: SessionKind, id: string, expectedRevision: number, state: S): Promise<UpdateResult<S>> {
    const stateJson = serializeState(state, this.maxStateBytes);
    if (!isSessionId(id, kind)) return { conflict: true, current: undefined };
    return this.guard('update', () =>
      this.locks.run(id, async (): Promise<UpdateResult<S>> => {
        const current = await this.read<S>(kind, id);
        if (current && this.expired(current) && (await removeFile(this.file(kind, id)))) this.index.remove(id);
        if (!current || this.expired(current)) return { conflict: true, current: undefined };
        if (current.revision !== expectedRevision) return { conflict: true, current };
        const now = this.options.clock.now();
        const meta = { id, kind, createdAt: current.createdAt, updatedAt: now, expiresAt: now + this.options.ttlMs, revision: current.revision + 1 };
        await writeFileDurably(this.file(kind, id), encodeSession(meta, stateJson));
        return { conflict: false, session: { ...meta, state: JSON.parse(stateJson) as S } };
      }),
    );
  }

  /** Newest first from the index; each candidate is read as `get` reads it, and one gone or expired leaves the index. */
  async list<S>(query: SessionQuery<S>): Promise<SessionPage<S>> {
    return this.guard('list', async () => {
      const load = (ids: string[]) =>
        Promise.all(
          ids.map(async (id) => {
            const session = await this.get<S>(kindOfSessionId(id)!, id);
            if (!session) this.index.remove(id);
            return session;
          }),
        );
      return collectSessionPage(inOrder(await this.index.positions()), load, query);
    });
  }

  /** Removes expired sessions and stray temp files now; answers how many files went. Never rejects. */
  async sweep(): Promise<number> {
    return sweepSessions(this.sweepTarget);
  }

  /** Resolves once a background sweep, if one is running, has finished (tests, shutdown). */
  async idle(): Promise<void> {
    await this.sweeping;
  }

  /** Session ids with an operation in flight; 0 when the store is idle. */
  get lockedIds(): number {
    return this.locks.size;
  }

  private maybeSweep(): void {
    const now = this.options.clock.now();
    if (this.sweeping || now - this.lastSweepAt < SWEEP_INTERVAL_MS) return;
    this.lastSweepAt = now;
    this.sweeping = this.sweep().finally(() => (this.sweeping = undefined));
  }

  /** Under the id's lock: removes the file unless it holds a live session. true when removed. */
  private async removeIfGone(kind: SessionKind, id: string): Promise<boolean> {
    const session = await this.read(kind, id);
    if (session && !this.expired(session)) return false;
    const removed = await removeFile(this.file(kind, id));
    if (removed) this.index.remove(id);
    return removed;
  }

  private expired(session: Session<unknown>): boolean {
    return this.options.clock.now() > session.expiresAt;
  }

  private file(kind: SessionKind, id: string): string {
    return path.join(this.options.dir, kind, `${id}.json`);
  }

  private readFile(kind: SessionKind, id: string): Promise<string | undefined> {
    // room for the record's other fields around the largest state
    return readFileBounded(this.file(kind, id), this.maxStateBytes + 1024);
  }

  private async read<S>(kind: SessionKind, id: string): Promise<Session<S> | undefined> {
    try {
      const text = await this.readFile(kind, id);
      return text === undefined ? undefined : decodeSession<S>(text, kind, id);
    } catch (e) {
      if (!(e instanceof CorruptSessionFileError)) throw e;
      this.options.logger?.warn('session file is corrupt; treated as absent', { kind, id, reason: e.message });
      return undefined;
    }
  }

  private async guard<T>(op: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof DomainError) throw e;
      this.options.logger?.error('session store failed', { op, error: (e as Error).message });
      throw new DependencyError('sessions', `Session store could not ${op}: ${(e as Error).message}`);
    }
  }
}
