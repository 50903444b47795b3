import { DependencyError, ValidationError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Session, SessionKind } from '../../domain/sessions/session.js';
import { claim, finish, release, type Approval, type Decision, type Executable } from '../../domain/sessions/approval-session.js';

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
 * replicas) ask at the same moment: the aggregate's `claim` moves the
 * session to executing and the claim is stored with a revision check, so
 * exactly one caller stores it. Every other caller gets the aggregate's
 * refusal: a 400 that carries the earlier outcome (or says it is still
 * running). The outcome (`finish`) is stored before it is returned. When
 * `work` throws NothingAppliedError the claim is given back (`release`), so
 * the session can be executed again. `approval` (who approved which
 * planDigest) is recorded with the execution. The rules are the aggregate's
 * (domain/sessions/approval-session.ts); this keeps the storing and the work.
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
  const claimed = decided(claim(session.id, session.state, new Date(clock.now()).toISOString(), approval, start));
  const stored = await store.update<S>(kind, session.id, session.revision, claimed);
  if (stored.conflict) {
    const current = stored.current && claim(session.id, stored.current.state, new Date(clock.now()).toISOString(), approval, start);
    if (current && 'refused' in current) throw current.refused.error;
    throw new ValidationError(`Session ${session.id} changed while this request was reading it; ask again`);
  }
  const running = stored.session;
  let result: { outcome: O } | { error: string };
  try {
    result = { outcome: await work() };
  } catch (e) {
    if (e instanceof NothingAppliedError) {
      await store.update<S>(kind, session.id, running.revision, decided(release(session.id, running.state)));
      throw e;
    }
    const failed = decided(finish<S, O>(session.id, running.state, { error: e instanceof Error ? e.message : String(e) }, new Date(clock.now()).toISOString()));
    await store.update<S>(kind, session.id, running.revision, failed);
    throw e;
  }
  const done = decided(finish<S, O>(session.id, running.state, result, new Date(clock.now()).toISOString()));
  const saved = await store.update<S>(kind, session.id, running.revision, done);
  if (saved.conflict) throw new ValidationError(`Session ${session.id} expired while it was executing; its outcome could not be stored`);
  return { outcome: done.execution!.outcome as O, session: saved.session };
}

/** The state a step decided, or throws its refusal. */
function decided<S>(d: Decision<S>): S {
  if ('refused' in d) throw d.refused.error;
  return 'next' in d ? d.next : d.unchanged;
}
