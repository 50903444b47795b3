import { ValidationError } from '../../domain/errors.js';
import type { SolutionState } from '../../domain/deployment/solution.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Session } from '../../domain/sessions/session.js';
import { unknownSession } from '../../domain/sessions/session-id.js';
import { NO_SECOND_APPROVER, type ApprovalPolicy } from '../../domain/auth/session-owner.js';
import { approveWrite, ownedBy, requireSessionOwner } from '../sessions/session-access.js';
import type { ToolContext } from '../tool-handler.js';

const START = 'Call recommend with your intent to get a new solutionId.';

/** Solution sessions: load (400 naming recommend when unknown or expired) and save with the revision check. */
export class SolutionSessions {
  constructor(
    private readonly store: SessionStore,
    private readonly approval: ApprovalPolicy = NO_SECOND_APPROVER,
  ) {}

  /** A new session, owned by the caller of `context`. */
  create(state: SolutionState, context?: ToolContext): Promise<Session<SolutionState>> {
    return this.store.create<SolutionState>('solution', { ...state, ...ownedBy(context) });
  }

  /** The session; with `context`, the caller acts on it and must have started it or be an admin (403 otherwise). */
  async load(id: string, context?: ToolContext): Promise<Session<SolutionState>> {
    const session = await this.store.get<SolutionState>('solution', id);
    if (!session) throw unknownSession('solution', id, START);
    if (context) requireSessionOwner(session, context);
    return session;
  }

  /** A deploy of the session's manifests: into a protected namespace (with the second-approver rule on) by anyone but its starter, otherwise by its starter or an admin. */
  approveDeploy(session: Session<SolutionState>, namespaces: readonly (string | undefined)[], context: ToolContext | undefined): void {
    approveWrite(session, { risks: [], namespaces }, this.approval, context, 'another operator must call deployManifests');
  }

  async save(session: Session<SolutionState>, state: SolutionState): Promise<Session<SolutionState>> {
    const result = await this.store.update<SolutionState>('solution', session.id, session.revision, state);
    if (!result.conflict) return result.session;
    if (!result.current) throw unknownSession('solution', session.id, START);
    throw new ValidationError(`Solution ${session.id} was changed by another request meanwhile; ask again`);
  }
}
