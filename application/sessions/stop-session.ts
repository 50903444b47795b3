import { ValidationError } from '../../domain/errors.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import { stop, type Actor, type ApprovalSessionState } from '../../domain/sessions/approval-session.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import { unknownSession } from '../../domain/sessions/session-id.js';

/**
 * Stops an approval session (executeChoice 2 of every session tool: remediate
 * and operate, through the session dispatcher) by the aggregate's rule
 * (`stop`: who may, in which phase), storing the stopped state; a request
 * that lost a race to another one judges the session as the other left it
 * (stopped by it: the same answer as stopping twice). Returns the session as
 * stored; throws the rule's refusal.
 */
export async function stopApprovalSession<S extends ApprovalSessionState>(
  sessions: SessionStore,
  kind: SessionKind,
  session: Session<S>,
  by: Actor,
  now: Date,
  start: string,
): Promise<Session<S>> {
  const decide = (s: Session<S>) => {
    const d = stop(s.id, s.state, by, now.toISOString(), start);
    if ('refused' in d) throw d.refused.error;
    return d;
  };
  const decided = decide(session);
  if ('unchanged' in decided) return session;
  const saved = await sessions.update<S>(kind, session.id, session.revision, decided.next);
  if (!saved.conflict) return saved.session;
  if (!saved.current) throw unknownSession(kind, session.id, start);
  if ('unchanged' in decide(saved.current)) return saved.current;
  throw new ValidationError(`Session ${session.id} changed while this request was reading it; ask again`);
}
