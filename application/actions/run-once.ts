import { DependencyError, ValidationError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';

/** What a session records about its one execution. */
export interface ExecutionRecord<O> {
  status: 'running' | 'done' | 'failed';
  startedAt: string;
  finishedAt?: string;
  outcome?: O;
  /** With `failed`: why (a safe message). */
  error?: string;
}

export interface Executable<O> {
  execution?: ExecutionRecord<O>;
  stopped?: { at: string };
}

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
 * The one refusal of a step on a session that was executed (or is being
 * executed) or stopped; the 400 carries the execution record. `step` is what
 * was asked (`executed again`, `stopped`, `refined`); `start` says how to begin anew.
 */
export function closedRefusal(id: string, state: Executable<unknown>, step: string, start: string): ValidationError | undefined {
  const { execution, stopped } = state;
  if (execution?.status === 'running')
    return new ValidationError(
      `Session ${id} is being executed by another request; it cannot be ${step}: ask again with the same sessionId (and no executeChoice) to see its outcome`,
      { execution },
    );
  if (execution)
    return new ValidationError(
      `Session ${id} was already executed (${execution.status} at ${execution.finishedAt ?? execution.startedAt}); a session executes at most once, it cannot be ${step}. ${start}`,
      { execution },
    );
  if (stopped) return new ValidationError(`Session ${id} was stopped at ${stopped.at}; nothing was applied, it cannot be ${step}. ${start}`);
  return undefined;
}

/**
 * Runs `work` at most once per session, also when two requests (or two
 * replicas) ask at the same moment: the claim is an update with a revision
 * check, so exactly one caller moves the session to `running`. Every other
 * caller gets a 400 that carries the earlier outcome (or says it is still
 * running). The outcome is stored before it is returned. When `work` throws
 * NothingAppliedError the claim is released, so the session can be executed again.
 */
export async function runOnce<S extends Executable<O>, O>(
  store: SessionStore,
  kind: SessionKind,
  session: Session<S>,
  clock: Clock,
  work: () => Promise<O>,
  start = 'Start a new session to make another change.',
): Promise<{ outcome: O; session: Session<S> }> {
  const closed = closedRefusal(session.id, session.state, 'executed again', start);
  if (closed) throw closed;
  const claim: ExecutionRecord<O> = { status: 'running', startedAt: new Date(clock.now()).toISOString() };
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
