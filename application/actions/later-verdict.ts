import type { SessionStore } from '../../domain/ports/session-store.js';
import type { ExecutionRecord } from '../../domain/sessions/approval-session.js';
import type { SessionKind } from '../../domain/sessions/session.js';
import type { ExecutionVerification } from './verify-execution.js';

const TRIES = 5;

/**
 * Where a verdict that came after the answer goes: onto the session's
 * recorded execution, in place of the verdict so far (`place` says how the
 * outcome takes it). Retried on a revision conflict; a session gone (expired)
 * or one whose outcome already holds a final verdict is left alone.
 */
export function laterVerdictOn<O extends { health?: ExecutionVerification }>(
  sessions: SessionStore,
  kind: SessionKind,
  sessionId: string,
  place: (outcome: O, verdict: ExecutionVerification) => O = (outcome, verdict) => ({ ...outcome, health: verdict }),
): (verdict: ExecutionVerification) => Promise<void> {
  return async (verdict) => {
    for (let i = 0; i < TRIES; i++) {
      const session = await sessions.get<{ execution?: ExecutionRecord<O> }>(kind, sessionId);
      const execution = session?.state.execution;
      // the outcome is stored once the call answered; a verdict that came first waits for it
      if (!session || !execution || (execution.status === 'done' && execution.outcome?.health?.pending !== true)) return;
      if (execution.status !== 'done' || !execution.outcome) {
        await new Promise((resolve) => setTimeout(resolve, 50 * (i + 1)));
        continue;
      }
      const saved = await sessions.update(kind, sessionId, session.revision, {
        ...session.state,
        execution: { ...execution, outcome: place(execution.outcome, verdict) },
      });
      if (!saved.conflict) return;
    }
  };
}
