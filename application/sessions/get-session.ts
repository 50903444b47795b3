import type { Caller } from '../../domain/auth/caller.js';
import { NO_SECOND_APPROVER, requireSessionReader, type ApprovalPolicy, type Owned } from '../../domain/auth/session-owner.js';
import { ERROR_CODES, NotFoundError } from '../../domain/errors.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import { kindOfSessionId } from '../../domain/sessions/session-cursor.js';
import { describeSession, type SessionDetail } from './session-summary.js';

/**
 * One session with what its tool answers about it. Unknown, expired and
 * malformed ids are 404 (a malformed one is never looked up); someone else's
 * session is 403 naming its owner, unless the caller is an admin (or an
 * operator under the second-approver rule): requireSessionReader, the rule
 * the tools' own look applies too.
 */
export class GetSession {
  constructor(
    private readonly store: SessionStore,
    /** The second-approver rule: with it on, operators may read a session to approve it. */
    private readonly approval: ApprovalPolicy = NO_SECOND_APPROVER,
  ) {}

  async execute(sessionId: string, caller: Caller): Promise<SessionDetail> {
    const kind = kindOfSessionId(sessionId);
    const session = kind ? await this.store.get<Owned>(kind, sessionId) : undefined;
    if (!session) throw new NotFoundError(ERROR_CODES.NOT_FOUND, `No session ${kind ? sessionId : '(malformed id)'}: it is unknown or expired`);
    requireSessionReader(session.state.owner, caller, sessionId, this.approval);
    return describeSession(session, true);
  }
}
