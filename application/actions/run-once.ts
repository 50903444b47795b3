import { ValidationError } from '../../domain/errors.js';
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
}

/**
 * Runs `work` at most once per session, also when two requests (or two
 * replicas) ask at the same moment: the claim is an update with a revision
 * check, so exactly one caller moves the session to `running`. Every other
 * caller gets a 400 that carries the earlier outcome (or says it is still
 * running). The outcome is stored before it is returned.
 */
export async function runOnce<S extends Executable<O>, O>(
  store: SessionStore,
  kind: SessionKind,
  session: Session<S>,
  clock: Clock,
  work: () => Promise<O>,
): Promise<{ outcome: O; session: Session<S> }> {
  const refuse = (earlier: ExecutionRecord<O>) =>
    new ValidationError(
      earlier.status === 'running'
        ? `Session ${session.id} is being executed by another request; ask again with the same sessionId (and no executeChoice) to see its outcome`
        : `Session ${session.id} was already executed (${earlier.status} at ${earlier.finishedAt ?? earlier.startedAt}); a session executes at most once: start a new one to make another change`,
      { execution: earlier },
    );
  if (session.state.execution) throw refuse(session.state.execution);
  const claim: ExecutionRecord<O> = { status: 'running', startedAt: new Date(clock.now()).toISOString() };
  const claimed = await store.update<S>(kind, session.id, session.revision, { ...session.state, execution: claim });
  if (claimed.conflict) {
    const earlier = claimed.current?.state.execution;
    if (earlier) throw refuse(earlier);
    throw new ValidationError(`Session ${session.id} changed while this request was reading it; ask again`);
  }
  let record: ExecutionRecord<O>;
  try {
    record = { ...claim, status: 'done', outcome: await work(), finishedAt: new Date(clock.now()).toISOString() };
  } catch (e) {
    record = { ...claim, status: 'failed', error: e instanceof Error ? e.message.slice(0, 1000) : String(e), finishedAt: new Date(clock.now()).toISOString() };
    await store.update<S>(kind, session.id, claimed.session.revision, { ...claimed.session.state, execution: record });
    throw e;
  }
  const saved = await store.update<S>(kind, session.id, claimed.session.revision, { ...claimed.session.state, execution: record });
  if (saved.conflict) throw new ValidationError(`Session ${session.id} expired while it was executing; its outcome could not be stored`);
  return { outcome: record.outcome as O, session: saved.session };
}
