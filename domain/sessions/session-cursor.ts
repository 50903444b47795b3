import { decodeCursor, encodeCursor, type PagePosition } from '../paging/newest-first-cursor.js';
import { SESSION_KINDS, type Session, type SessionKind } from './session.js';
import { isSessionId } from './session-id.js';

/** The kind of a well-formed session id, from its prefix; undefined for anything else. */
export function kindOfSessionId(id: unknown): SessionKind | undefined {
  return (Object.keys(SESSION_KINDS) as SessionKind[]).find((k) => isSessionId(id, k));
}

/** A session's place in newest-first order. */
export function sessionPosition(s: Pick<Session<unknown>, 'createdAt' | 'id'>): PagePosition {
  return { createdAt: new Date(s.createdAt).toISOString(), id: s.id };
}

/** Where a page of sessions ended: opaque to clients. */
export function sessionCursor(at: PagePosition): string {
  return encodeCursor(at);
}

/** The decoded cursor; undefined when absent or not one svc wrote for a page of sessions. */
export function readSessionCursor(cursor: string | undefined): PagePosition | undefined {
  return decodeCursor(cursor, (id) => kindOfSessionId(id) !== undefined);
}
