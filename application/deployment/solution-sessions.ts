import { ValidationError } from '../../domain/errors.js';
import type { SolutionState } from '../../domain/deployment/solution.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Session } from '../../domain/sessions/session.js';
import { unknownSession } from '../../domain/sessions/session-id.js';

const START = 'Call recommend with your intent to get a new solutionId.';

/** Solution sessions: load (400 naming recommend when unknown or expired) and save with the revision check. */
export class SolutionSessions {
  constructor(private readonly store: SessionStore) {}

  create(state: SolutionState): Promise<Session<SolutionState>> {
    return this.store.create<SolutionState>('solution', state);
  }

  async load(id: string): Promise<Session<SolutionState>> {
    const session = await this.store.get<SolutionState>('solution', id);
    if (!session) throw unknownSession('solution', id, START);
    return session;
  }

  async save(session: Session<SolutionState>, state: SolutionState): Promise<Session<SolutionState>> {
    const result = await this.store.update<SolutionState>('solution', session.id, session.revision, state);
    if (!result.conflict) return result.session;
    if (!result.current) throw unknownSession('solution', session.id, START);
    throw new ValidationError(`Solution ${session.id} was changed by another request meanwhile; ask again`);
  }
}
