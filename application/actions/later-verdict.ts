import type { Timers } from '../../domain/ports/clock.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { ExecutionRecord } from '../../domain/sessions/approval-session.js';
import type { SessionKind } from '../../domain/sessions/session.js';
import type { ExecutionVerification } from './verify-execution.js';

/** Revision conflicts retried. */
const TRIES = 5;
/** How long a verdict waits for the call to store its outcome (remediate's follow-up model check may still run): SVC_AI_TIMEOUT_MS's ceiling. */
const OUTCOME_WAIT_MS = 3_600_000;
const POLL_MS = 500;

/**
 * Where a verdict that came after the answer goes: onto the session's
 * recorded execution, in place of the verdict so far (`place` says how the
 * outcome takes it). Retried on a revision conflict; a session gone (expired)
 * or one whose outcome already holds a final verdict is left alone. While the
 * call that answered is still storing its outcome (its execution `running`),
 * the verdict waits for it.
 */
export function laterVerdictOn<O extends { health?: ExecutionVerification }>(
  sessions: SessionStore,
  timers: Timers,
  kind: SessionKind,
  sessionId: string,
  place: (outcome: O, verdict: ExecutionVerification) => O = (outcome, verdict) => ({ ...outcome, health: verdict }),
): (verdict: ExecutionVerification) => Promise<void> {
  return async (verdict) => {
    let conflicts = 0;
    for (let waited = 0; waited <= OUTCOME_WAIT_MS;) {
      const session = await sessions.get<{ execution?: ExecutionRecord<O> }>(kind, sessionId);
      const execution = session?.state.execution;
      if (!session || !execution || execution.status === 'failed') return;
      if (execution.status === 'running' || !execution.outcome) {
        await new Promise<void>((resolve) => timers.schedule(POLL_MS, resolve));
        waited += POLL_MS;
        continue;
      }
      if (execution.outcome.health?.pending !== true) return;
      const saved = await sessions.update(kind, sessionId, session.revision, {
        ...session.state,
        execution: { ...execution, outcome: place(execution.outcome, verdict) },
      });
      if (!saved.conflict || ++conflicts >= TRIES) return;
    }
  };
}
