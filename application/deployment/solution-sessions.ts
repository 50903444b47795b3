import { ValidationError } from '../../domain/errors.js';
import type { SolutionState } from '../../domain/deployment/solution.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Session } from '../../domain/sessions/session.js';
import { unknownSession } from '../../domain/sessions/session-id.js';
import type { ApprovalPolicy } from '../../domain/auth/session-owner.js';
import { requireDependencies } from '../required-deps.js';
import { callerIn, ownedBy, requireSessionOwner, requireSessionRead } from '../sessions/session-access.js';
import { approvePlan, type Approval, type PlanUnderApproval } from '../../domain/sessions/approval-session.js';
import type { ToolContext } from '../tool-handler.js';

const START = 'Call recommend with your intent to get a new solutionId.';

/** Solution sessions: load (400 naming recommend when unknown or expired) and save with the revision check. */
export class SolutionSessions {
  constructor(
    private readonly store: SessionStore,
    /** SVC_REQUIRE_SECOND_APPROVER and SVC_PROTECTED_NAMESPACES (NO_SECOND_APPROVER, named, where none is meant). */
    private readonly approval: ApprovalPolicy,
  ) {
    requireDependencies('SolutionSessions', { store, approval }, ['store', 'approval']);
  }

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

  /** Looking at a deploy (its preview): the session's starter or an admin; with the second-approver rule on, any operator (who may be the one to approve it). */
  requireDeployReader(session: Session<SolutionState>, context: ToolContext | undefined): void {
    requireSessionRead(session, this.approval, context);
  }

  /**
   * A deploy of the plan svc previewed: the one approval rule of remediate
   * and operate (approvePlan): a `sentDigest` that is not the plan's is 409;
   * with the second-approver rule on and a high-risk object (by the write
   * guard's risk: cluster-scoped and sensitive kinds included) or a protected
   * namespace, the starter gets 403 and another caller must send the digest;
   * otherwise the starter or an admin.
   */
  approveDeploy(session: Session<SolutionState>, plan: PlanUnderApproval, sentDigest: string | undefined, context: ToolContext | undefined): Approval {
    return approvePlan({
      sessionId: session.id,
      state: session.state,
      plan,
      caller: callerIn(context),
      policy: this.approval,
      sentDigest,
      how: 'another operator must call deployManifests with the planDigest of its preview',
    });
  }

  async save(session: Session<SolutionState>, state: SolutionState): Promise<Session<SolutionState>> {
    const result = await this.store.update<SolutionState>('solution', session.id, session.revision, state);
    if (!result.conflict) return result.session;
    if (!result.current) throw unknownSession('solution', session.id, START);
    throw new ValidationError(`Solution ${session.id} was changed by another request meanwhile; ask again`);
  }
}
