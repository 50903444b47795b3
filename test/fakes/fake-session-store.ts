import { randomBytes } from 'node:crypto';
import type { Clock } from '../../domain/ports/clock.js';
import type { SessionPage, SessionQuery, SessionStore, UpdateResult } from '../../domain/ports/session-store.js';
import { kindOfSessionId, sessionPosition } from '../../domain/sessions/session-cursor.js';
import { collectSessionPage, inOrder } from '../../domain/sessions/session-page.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import { isSessionId, newSessionId } from '../../domain/sessions/session-id.js';

export interface FakeSessionStoreOptions {
  clock: Clock;
  /** Default one day. */
  ttlMs?: number;
  /** 32 lowercase hex digits; default crypto.randomBytes(16). */
  random?: () => string;
}

/**
 * In-memory SessionStore honouring the port's contract (the contract suite
 * runs against it): records kept as JSON text, so every read is a deep copy.
 * `failNextWith` makes the next call reject, for use-case tests of store failures.
 */
export class FakeSessionStore implements SessionStore {
  /** Stored records by id, as JSON text. */
  readonly records = new Map<string, string>();
  failNextWith: Error | undefined;
  private readonly ttlMs: number;
  private readonly random: () => string;

  constructor(private readonly options: FakeSessionStoreOptions) {
    this.ttlMs = options.ttlMs ?? 86_400_000;
    this.random = options.random ?? (() => randomBytes(16).toString('hex'));
  }

  async create<S>(kind: SessionKind, state: S): Promise<Session<S>> {
    this.failIfAsked();
    let id = newSessionId(kind, this.random());
    while (this.records.has(id)) id = newSessionId(kind, this.random());
    const now = this.options.clock.now();
    return this.put({ id, kind, createdAt: now, updatedAt: now, expiresAt: now + this.ttlMs, revision: 1, state });
  }

  async get<S>(kind: SessionKind, id: string): Promise<Session<S> | undefined> {
    this.failIfAsked();
    return this.live<S>(kind, id);
  }

  async update<S>(kind: SessionKind, id: string, expectedRevision: number, state: S): Promise<UpdateResult<S>> {
    this.failIfAsked();
    const current = this.live<S>(kind, id);
    if (!current) return { conflict: true, current: undefined };
    if (current.revision !== expectedRevision) return { conflict: true, current };
    const now = this.options.clock.now();
    const session = this.put({ ...current, updatedAt: now, expiresAt: now + this.ttlMs, revision: current.revision + 1, state });
    return { conflict: false, session };
  }

  async list<S>(query: SessionQuery<S>): Promise<SessionPage<S>> {
    this.failIfAsked();
    const positions = [...this.records.values()].map((text) => sessionPosition(JSON.parse(text) as Session<unknown>));
    return collectSessionPage(inOrder(positions), async (ids) => ids.map((id) => this.live<S>(kindOfSessionId(id)!, id)), query);
  }

  private live<S>(kind: SessionKind, id: string): Session<S> | undefined {
    if (!isSessionId(id, kind)) return undefined;
    const text = this.records.get(id);
    if (text === undefined) return undefined;
    const session = JSON.parse(text) as Session<S>;
    if (this.options.clock.now() <= session.expiresAt) return session;
    this.records.delete(id);
    return undefined;
  }

  private put<S>(session: Session<S>): Session<S> {
    const text = JSON.stringify({ ...session, state: session.state ?? null });
    this.records.set(session.id, text);
    return JSON.parse(text) as Session<S>;
  }

  private failIfAsked(): void {
    const error = this.failNextWith;
    this.failNextWith = undefined;
    if (error) throw error;
  }
}
