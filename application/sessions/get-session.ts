import type { Caller } from '../../domain/auth/caller.js';
import { requireOwnerOrAdmin, type Owned } from '../../domain/auth/session-owner.js';
import { ERROR_CODES, NotFoundError } from '../../domain/errors.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import { kindOfSessionId } from '../../domain/sessions/session-cursor.js';
import { describeSession, type SessionDetail } from './session-summary.js';

/**
 * One session with what its tool answers about it. Unknown, expired and
 * malformed ids are 404 (a malformed one is never looked up); someone else's
 * session is 403 naming its owner, unless the caller is an admin.
 */
export class GetSession {
  constructor(private readonly store: SessionStore) {}

  async execute(sessionId: string, caller: Caller): Promise<SessionDetail> {
    const kind = kindOfSessionId(sessionId);
    const session = kind ? await this.store.get<Owned>(kind, sessionId) : undefined;
    if (!session) throw new NotFoundError(ERROR_CODES.NOT_FOUND, `No session ${kind ? sessionId : '(malformed id)'}: it is unknown or expired`);
    requireOwnerOrAdmin(session.state.owner, caller, sessionId, 'read');
    return describeSession(session, true);
  }
}
