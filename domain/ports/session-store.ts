import type { PagePosition } from '../paging/newest-first-cursor.js';
import type { Session, SessionKind } from '../sessions/session.js';

/** Records a `list` call examines at most: a page's cost stays bounded however many sessions there are. */
export const MAX_SESSIONS_EXAMINED = 1000;

export interface SessionQuery<S> {
  /** Only sessions of these kinds; absent: every kind. */
  kinds?: readonly SessionKind[];
  /** 1..100 */
  limit: number;
  /** Only sessions after this position in newest-first order (the previous page's `next`). */
  after?: PagePosition;
  /** Only sessions this accepts (an owner, a status); it sees the session as `get` would answer it. */
  match?: (session: Session<S>) => boolean;
}

export interface SessionPage<S> {
  sessions: Session<S>[];
  /** Where the next page starts; absent when nothing more can follow. */
  next?: PagePosition;
}

/**
 * State of multi-step tools (solutions, remediations, operations), shared by
 * every interface and, on a shared adapter, by every replica.
 *
 * Contract (the contract suite in test/contract holds every adapter to it):
 * - `create` stores a new session with a fresh id (the kind's prefix and 128
 *   random bits), revision 1, `expiresAt` = now + the store's TTL.
 * - `get` answers undefined for an id that is malformed, unknown, of another
 *   kind, or expired; an expired record is removed. It never throws for those.
 * - `update` replaces the state only if the stored revision equals
 *   `expectedRevision`, atomically (two concurrent updates with the same
 *   revision: exactly one wins); it returns the stored session with
 *   revision + 1 and a renewed `expiresAt`. A stale revision answers
 *   `{ conflict: true, current }` (current: undefined when the session has
 *   gone meanwhile). An unknown or expired session is `{ conflict: true, current: undefined }`.
 * - States are JSON: what comes back is a deep copy, never the caller's object.
 * - `list` answers the live sessions of the query's kinds that `match`
 *   accepts, newest first (`createdAt` descending, the id descending on a
 *   tie), strictly after `after`, at most `limit`. It examines at most
 *   MAX_SESSIONS_EXAMINED records: `next` is the position of the last session
 *   answered when more match, or of the last record examined when it stopped
 *   at that bound (a page may then be short, even empty, and still have a
 *   `next`); absent when nothing more can follow. An expired session never
 *   appears. Sessions answered are deep copies.
 * - A failure of the store itself is DependencyError('sessions', ...).
 */
export interface SessionStore {
  create<S>(kind: SessionKind, state: S): Promise<Session<S>>;
  get<S>(kind: SessionKind, id: string): Promise<Session<S> | undefined>;
  update<S>(kind: SessionKind, id: string, expectedRevision: number, state: S): Promise<UpdateResult<S>>;
  list<S>(query: SessionQuery<S>): Promise<SessionPage<S>>;
}

export type UpdateResult<S> = { conflict: false; session: Session<S> } | { conflict: true; current: Session<S> | undefined };
