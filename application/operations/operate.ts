import { actorIn, callerIn, ownedBy, planUnderApproval } from '../sessions/session-access.js';
import { refine as refineRule, type Approval } from '../../domain/sessions/approval-session.js';
import { dispatchSessionCall, parseSessionCall, type ApprovalSessionTool, type SessionGrammar } from '../sessions/session-dispatch.js';
import { AI_TOOL_SAFETY_DEPS, type AiToolDeps } from '../ai/ai-tool-deps.js';
import { requireDependencies } from '../required-deps.js';
import { requireConfigured } from '../ai/require-configured.js';
import { NotConfiguredError, ValidationError } from '../../domain/errors.js';
import { overallRisk } from '../../domain/operations/operation-plan.js';
import type { Session } from '../../domain/sessions/session.js';
import { unknownSession } from '../../domain/sessions/session-id.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import type { OperateOutput } from '../../domain/tools/outputs/operate-output.js';
import { policiesText } from '../actions/policy-source.js';
import { cannotExecute, refusals } from '../actions/proposed-action.js';
import { runOnce } from '../actions/run-once.js';
import type { ToolContext, ToolHandler } from '../tool-handler.js';
import { ExecuteOperation, type RolloutWaitOptions } from './execute-operation.js';
import type { WriteRecording } from '../actions/execute-actions.js';
import { onFailureFor, type OnFailure } from '../actions/verify-execution.js';
import { laterVerdictOn } from '../actions/later-verdict.js';
import { writeContextFor } from '../ledger/change-recorder.js';
import { operationView, type OperationView } from './operation-view.js';
import { operationPlanDigest, type ExecutionOutcome, type OperationState, type Proposal } from './operation-state.js';
import { PlanOperation, type PlanLimits } from './plan-operation.js';
import { previewActions } from '../actions/preview-actions.js';
import type { DeliverFix } from '../gitops/deliver-fix.js';
import { deliverInstead, gitopsWarning, markProposal, requireDelivery, type Delivery } from '../gitops/gitops-gate.js';

export interface OperateDeps extends AiToolDeps {
  limits: PlanLimits;
  rollout?: RolloutWaitOptions;
}

type Input = ToolInput<'operate'>;
const START = 'Start a new operation with operate and an intent.';

/** How operate's input reads: `intent` starts an operation, `refinedIntent` plans again within one. */
export const OPERATE_GRAMMAR: SessionGrammar = {
  tool: 'operate',
  startField: 'intent',
  noun: 'operation',
  refines: true,
  startOnly: ['intent'],
  startOnlyMessage: () => 'intent starts a new operation: to change the plan of a session, send refinedIntent with its sessionId',
  automaticMode: false,
};

/**
 * The operate tool: a day-2 change planned by a model against the live
 * cluster, dry-run, shown with a field-level diff, and applied only on
 * approval. One call is one of:
 * - start (`intent`, optional `evidence`): investigate, plan, dry-run, store a session, answer `awaiting_approval`;
 * - refine (`sessionId` + `refinedIntent`): plan again within the session;
 * - execute (`sessionId` + `executeChoice` 1, optional `onFailure`): at most once, then wait for rollouts,
 *   then the deterministic verdict (and on degraded the revert or report onFailure asks for);
 * - stop (`sessionId` + `executeChoice` 2): nothing applied;
 * - look (`sessionId` alone): the session as it stands.
 */
export class Operate implements ToolHandler<Input> {
  private readonly planner: PlanOperation;
  private readonly executor: ExecuteOperation;

  constructor(
    private readonly deps: OperateDeps,
    /** Delivery through git of changes to GitOps-managed objects; without it only live changes are possible. */
    private readonly deliverFix?: DeliverFix,
  ) {
    requireDependencies('Operate', deps, AI_TOOL_SAFETY_DEPS);
    this.planner = new PlanOperation(deps.llm, deps.reader, deps.tracer, deps.limits);
    this.executor = new ExecuteOperation(deps, deps.rollout);
  }

  /** The answer is held to the tool's output schema by the compiler (OperationView must fit OperateOutput). */
  async execute(input: Input, context?: ToolContext): Promise<OperateOutput> {
    return dispatchSessionCall(this.sessionTool(), parseSessionCall(input, OPERATE_GRAMMAR), context);
  }

  /** The steps of an operation session as the shared dispatcher (application/sessions/session-dispatch.ts) runs them. */
  private sessionTool(): ApprovalSessionTool<Input, OperationState, OperationView> {
    return {
      kind: 'operation',
      start: START,
      sessions: this.deps.sessions,
      clock: this.deps.clock,
      approval: this.deps.approval,
      requireFor: (step) => {
        if (step === 'refine') this.requireAiAndCluster();
        else if (step === 'execute') this.requireCluster();
      },
      planOf: (state) => planUnderApproval(operationPlanDigest(state), state.proposal.actions),
      view: operationView,
      begin: (input, context) => this.start(input.intent!, input.evidence, context),
      execute: (session, approval, call, context) =>
        this.run(session, call.delivery, context, approval, onFailureFor(call.onFailure, this.deps.verify.settings, false)),
      refine: (session, call, replan, context) => this.refine(session, call.refinedIntent, call.evidence, replan, context),
    };
  }

  private async start(intent: string, evidence: string | undefined, context: ToolContext | undefined): Promise<OperationView> {
    this.requireAiAndCluster();
    const proposal = await this.propose({ intent, evidence, refinements: [] });
    const session = await this.deps.sessions.create<OperationState>('operation', {
      ...ownedBy(context),
      intent,
      ...(evidence ? { evidence } : {}),
      refinements: [],
      ...proposal,
    });
    return operationView(session);
  }

  private async refine(
    session: Session<OperationState>,
    refinedIntent: string,
    evidence: string | undefined,
    replan: (next: Omit<OperationState, 'owner' | 'execution' | 'stopped'>) => OperationState,
    context: ToolContext | undefined,
  ): Promise<OperationView> {
    const { state } = session;
    const refinements = [...state.refinements, refinedIntent];
    const previousPlan = JSON.stringify({
      summary: state.proposal.summary,
      actions: state.proposal.actions.map((a) => ({ action: a.action, type: a.type, description: a.description, target: a.target, dryRun: a.dryRun })),
    });
    const kept = evidence ?? state.evidence;
    const proposal = await this.propose({ intent: state.intent, evidence: kept, refinements, previousPlan });
    const next = replan({ intent: state.intent, ...(kept ? { evidence: kept } : {}), refinements, ...proposal });
    const saved = await this.deps.sessions.update<OperationState>('operation', session.id, session.revision, next);
    if (saved.conflict) {
      if (!saved.current) throw unknownSession('operation', session.id, START);
      // judged as the other request left it: executed or stopped meanwhile is that refusal
      const now = refineRule(saved.current.id, saved.current.state, actorIn(context, this.deps.approval), START);
      if ('refused' in now) throw now.refused.error;
      throw new ValidationError(`Session ${session.id} was refined by another request meanwhile; look at it (sessionId alone) and refine again if needed`);
    }
    return operationView(saved.session);
  }

  private async run(
    session: Session<OperationState>,
    delivery?: Delivery,
    context?: ToolContext,
    approval?: Approval,
    onFailure: OnFailure = 'report',
  ): Promise<OperationView> {
    if (!session.state.proposal.executable) {
      throw cannotExecute(
        `Session ${session.id} cannot be executed: ${notExecutableReason(session.state.proposal)}. Send refinedIntent with this sessionId to plan again, or executeChoice 2 to stop.`,
        session.state.proposal.actions,
      );
    }
    const { actions } = session.state.plan;
    const marks = session.state.proposal.actions.map((a) => a.gitops ?? null);
    if (!session.state.execution) requireDelivery(actions, marks, delivery, `{"sessionId":"${session.id}","executeChoice":1}`);
    const started = this.deps.clock.now();
    const { session: saved } = await runOnce(
      this.deps.sessions,
      'operation',
      session,
      this.deps.clock,
      async () => {
        if (delivery !== 'git')
          return this.executor.execute(
            actions,
            session.state.proposal.actions,
            this.deps.limits.timeoutMs - (this.deps.clock.now() - started),
            this.recording(session, context),
            { onFailure, ...(context ? { caller: context.caller } : {}) },
            // a degraded verdict after the answer also means the operation did not succeed
            laterVerdictOn<ExecutionOutcome>(this.deps.sessions, this.deps.clock, 'operation', session.id, ExecuteOperation.withLaterVerdict),
          );
        if (!this.deliverFix) throw new NotConfiguredError('Delivery through git', 'this server was built without it');
        const { report, gitDelivery } = await deliverInstead(this.deps.writer, this.deliverFix, {
          sessionId: session.id,
          summary: session.state.intent,
          actions,
          marks,
          gitToken: context?.gitToken,
          requestedBy: context?.caller.username ?? 'unknown',
          now: new Date(this.deps.clock.now()),
          recording: this.recording(session, context).context,
        });
        return { succeeded: !!gitDelivery, ...report, actions: report.outcomes, rollouts: [], objects: [], ...(gitDelivery ? { gitDelivery } : {}) };
      },
      START,
      approval,
    );
    return operationView(saved);
  }

  /** Each write recorded for the caller who approved it (executeChoice 1; anonymous outside a request); the request is the intent and its refinements. */
  private recording(session: Session<OperationState>, context: ToolContext | undefined): WriteRecording {
    const request = [session.state.intent, ...session.state.refinements].join('\n');
    return { recorder: this.deps.recorder, context: writeContextFor('operate', session.id, request, context ?? { caller: callerIn(context) }) };
  }

  private async propose(input: {
    intent: string;
    evidence?: string;
    refinements: string[];
    previousPlan?: string;
  }): Promise<Pick<OperationState, 'plan' | 'proposal'>> {
    // the search gives the model context; the guard checks every stored policy
    const policies = await this.deps.policies.forText([input.intent, ...input.refinements].join('\n'));
    const { plan, investigation } = await this.planner.execute({ ...input, policies: policiesText(policies) });
    const now = new Date(this.deps.clock.now());
    const previews = await previewActions(this.deps.guard, plan.actions, now);
    const marks = await markProposal(this.deps.reader, plan.actions, this.deliverFix);
    const actions = previews.map((a, i) => (marks?.[i] ? { ...a, gitops: marks[i]! } : a));
    const warning = gitopsWarning(plan.actions, marks);
    const proposal: Proposal = {
      summary: plan.summary,
      risk: overallRisk({ ...plan, actions: plan.actions.map((a, i) => ({ ...a, risk: actions[i].risk })) }),
      executable: actions.length > 0 && actions.every((a) => a.dryRun.accepted),
      actions,
      investigation,
      plannedAt: now.toISOString(),
      ...(warning ? { warning } : {}),
    };
    return { plan, proposal };
  }

  private requireAiAndCluster(): void {
    requireConfigured({ llm: this.deps.llm, cluster: this.deps.reader });
  }

  private requireCluster(): void {
    requireConfigured({ cluster: this.deps.reader });
  }
}

export function notExecutableReason(p: Proposal): string {
  return p.actions.length === 0 ? 'the plan has no action' : refusals(p.actions);
}
