import { hasRole, type Caller } from '../../domain/auth/caller.js';
import { isOwner, type Owned } from '../../domain/auth/session-owner.js';
import { ValidationError } from '../../domain/errors.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import { readSessionCursor, sessionCursor } from '../../domain/sessions/session-cursor.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import { describeSession, SESSION_STATUSES, SESSION_TOOLS, type SessionSummary } from './session-summary.js';

export interface ListSessionsInput {
  caller: Caller;
  tool?: string;
  status?: string;
  limit?: number;
  cursor?: string;
}

export const MAX_SESSION_PAGE = 100;
export const DEFAULT_SESSION_PAGE = 20;
const TOOL_NAMES = Object.values(SESSION_TOOLS);

/**
 * The caller's remediation, operation and solution sessions (an admin's:
 * everyone's), newest first, each with its status and next step. Every
 * filter is checked before the store is read.
 */
export class ListSessions {
  constructor(private readonly store: SessionStore) {}

  async execute(input: ListSessionsInput): Promise<{ sessions: SessionSummary[]; nextCursor?: string }> {
    const limit = input.limit ?? DEFAULT_SESSION_PAGE;
    if (input.tool !== undefined && !TOOL_NAMES.includes(input.tool as never)) throw field('tool', `must be one of ${TOOL_NAMES.join(', ')}`);
    if (input.status !== undefined && !SESSION_STATUSES.includes(input.status)) throw field('status', `must be one of ${SESSION_STATUSES.join(', ')}`);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SESSION_PAGE) throw field('limit', `must be an integer from 1 to ${MAX_SESSION_PAGE}`);
    const after = readSessionCursor(input.cursor);
    if (input.cursor !== undefined && !after) throw field('cursor', 'is not one svc gave: pass nextCursor from the previous page unchanged');
    const kinds = input.tool ? (Object.keys(SESSION_TOOLS) as SessionKind[]).filter((k) => SESSION_TOOLS[k] === input.tool) : undefined;
    const mine = !hasRole(input.caller, 'admin');
    const summaries = new Map<string, SessionSummary>();
    const page = await this.store.list<Owned>({
      ...(kinds ? { kinds } : {}),
      limit,
      ...(after ? { after } : {}),
      match: (s: Session<Owned>) => {
        // the caller's own: a session stored before owners were recorded is nobody's
        if (mine && (s.state.owner === undefined || !isOwner(s.state.owner, input.caller))) return false;
        const summary = describeSession(s);
        if (input.status !== undefined && summary.status !== input.status) return false;
        summaries.set(s.id, summary);
        return true;
      },
    });
    return {
      sessions: page.sessions.map((s) => summaries.get(s.id) ?? describeSession(s)),
      ...(page.next ? { nextCursor: sessionCursor(page.next) } : {}),
    };
  }
}

function field(name: string, problem: string): ValidationError {
  return new ValidationError(`${name} ${problem}`, { field: name });
}
