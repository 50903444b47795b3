import type { Session, SessionKind } from '../sessions/session.js';

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
 * - A failure of the store itself is DependencyError('sessions', ...).
 */
export interface SessionStore {
  create<S>(kind: SessionKind, state: S): Promise<Session<S>>;
  get<S>(kind: SessionKind, id: string): Promise<Session<S> | undefined>;
  update<S>(kind: SessionKind, id: string, expectedRevision: number, state: S): Promise<UpdateResult<S>>;
}

export type UpdateResult<S> = { conflict: false; session: Session<S> } | { conflict: true; current: Session<S> | undefined };
