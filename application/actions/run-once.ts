import { DependencyError, ValidationError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import { closedRefusal, type Approval, type Executable, type ExecutionRecord } from '../../domain/sessions/approval-session.js';

export { closedRefusal, type Executable, type ExecutionRecord } from '../../domain/sessions/approval-session.js';

/**
 * A failure before anything was written (the API server answered 5xx or did
 * not answer during a dry run): runOnce gives the session back for another
 * try instead of recording it failed forever.
 */
export class NothingAppliedError extends DependencyError {
  constructor(cause: DependencyError) {
    super(cause.dependency, `${cause.message}. Nothing was applied: ask again with the same sessionId and executeChoice 1`);
  }
}

/**
 * Runs `work` at most once per session, also when two requests (or two
 * replicas) ask at the same moment: the claim is an update with a revision
 * check, so exactly one caller moves the session to `running`. Every other
 * caller gets a 400 that carries the earlier outcome (or says it is still
 * running). The outcome is stored before it is returned. When `work` throws
 * NothingAppliedError the claim is released, so the session can be executed again.
 * `approval` (who approved which planDigest) is recorded with the execution.
 */
export async function runOnce<S extends Executable<O>, O>(
  store: SessionStore,
  kind: SessionKind,
  session: Session<S>,
  clock: Clock,
  work: () => Promise<O>,
  start = 'Start a new session to make another change.',
  approval?: Approval,
): Promise<{ outcome: O; session: Session<S> }> {
  const closed = closedRefusal(session.id, session.state, 'executed again', start);
  if (closed) throw closed;
  const claim: ExecutionRecord<O> = { status: 'running', startedAt: new Date(clock.now()).toISOString(), ...(approval ? { approval } : {}) };
  const claimed = await store.update<S>(kind, session.id, session.revision, { ...session.state, execution: claim });
  if (claimed.conflict) {
    const refusal = claimed.current && closedRefusal(session.id, claimed.current.state, 'executed again', start);
    if (refusal) throw refusal;
    throw new ValidationError(`Session ${session.id} changed while this request was reading it; ask again`);
  }
  let record: ExecutionRecord<O>;
  try {
    record = { ...claim, status: 'done', outcome: await work(), finishedAt: new Date(clock.now()).toISOString() };
  } catch (e) {
    if (e instanceof NothingAppliedError) {
      const { execution: _claim, ...released } = claimed.session.state;
      await store.update<S>(kind, session.id, claimed.session.revision, released as S);
      throw e;
    }
    record = { ...claim, status: 'failed', error: e instanceof Error ? e.message.slice(0, 1000) : String(e), finishedAt: new Date(clock.now()).toISOString() };
    await store.update<S>(kind, session.id, claimed.session.revision, { ...claimed.session.state, execution: record });
    throw e;
  }
  const saved = await store.update<S>(kind, session.id, claimed.session.revision, { ...claimed.session.state, execution: record });
  if (saved.conflict) throw new ValidationError(`Session ${session.id} expired while it was executing; its outcome could not be stored`);
  return { outcome: record.outcome as O, session: saved.session };
}
