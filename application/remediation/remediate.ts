import { approveAutomatically, type Approval } from '../../domain/sessions/approval-session.js';
import { callerIn, ownedBy, planUnderApproval } from '../sessions/session-access.js';
import { dispatchSessionCall, parseSessionCall, type ApprovalSessionTool, type SessionGrammar } from '../sessions/session-dispatch.js';
import { AI_TOOL_SAFETY_DEPS, type AiToolDeps } from '../ai/ai-tool-deps.js';
import { decideAutoExecution, namespacesNamedIn } from '../../domain/actions/auto-execution.js';
import { DomainError, NotConfiguredError, ValidationError } from '../../domain/errors.js';
import type { Session } from '../../domain/sessions/session.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import { AwaitRollouts, rolloutLines, uniqueTargets, type RolloutWaitOptions } from '../actions/await-rollouts.js';
import { answerWithinMs, executedWrites, onFailureFor, verdictLines, type OnFailure } from '../actions/verify-execution.js';
import { laterVerdictOn } from '../actions/later-verdict.js';
import { executeApproved } from '../actions/execute-approved.js';
import { policiesText } from '../actions/policy-source.js';
import { previewActions } from '../actions/preview-actions.js';
import { cannotExecute, refusals } from '../actions/proposed-action.js';
import { NothingAppliedError, runOnce } from '../actions/run-once.js';
import type { WriteRecording } from '../actions/execute-actions.js';
import { writeContextFor } from '../ledger/change-recorder.js';
import { requireDependencies } from '../required-deps.js';
import { requireConfigured } from '../ai/require-configured.js';
import { RunBudget } from '../ai/run-budget.js';
import type { DeliverFix } from '../gitops/deliver-fix.js';
import { automaticRefusal, deliverInstead, markProposal, requireDelivery, type Delivery } from '../gitops/gitops-gate.js';
import type { ToolContext, ToolHandler } from '../tool-handler.js';
import { Investigate } from './investigate.js';
import { remediationPlanDigest, type RemediationOutcome, type RemediationState } from './remediation-state.js';
import { remediationView, type RemediationView } from './remediation-view.js';
import { VERIFY_MODEL_CALLS, VerifyFix } from './verify-fix.js';

/** Model calls of one investigation, the structured analysis included. */
export const REMEDIATE_MODEL_CALLS = 25;
const EVIDENCE_EXCERPT_CHARS = 500;
const START = 'Start a new investigation with remediate and an issue.';

export interface RemediateDeps extends AiToolDeps {
  /** How long to wait for the rollouts of changed workloads before the follow-up check (the run's deadline lowers it). */
  rollout?: RolloutWaitOptions;
}

type Input = ToolInput<'remediate'>;

/** How remediate's input reads: `issue` starts an investigation; its settings only come with a start. */
export const REMEDIATE_GRAMMAR: SessionGrammar = {
  tool: 'remediate',
  startField: 'issue',
  noun: 'investigation',
  refines: false,
  startOnly: ['issue', 'namespace', 'evidence', 'mode', 'confidenceThreshold', 'maxRiskLevel'],
  startOnlyMessage: (fields) =>
    `${fields.join(', ')} only apply when starting an investigation; with sessionId send executeChoice (1 execute, 2 stop) or nothing to see the session`,
  automaticMode: true,
};

/**
 * The remediate tool. One call is one of:
 * - start (`issue`, optional `evidence`, `mode`, `confidenceThreshold`, `maxRiskLevel`):
 *   investigate read-only (the applicable organisation policies shown as
 *   data), analyse, preview every action (allow-lists, dry run, diff,
 *   policies, svc's risk), store a session; in automatic mode execute when
 *   the rule allows (judged on the preview, not the model's words), else
 *   answer with the proposal and why not;
 * - execute (`sessionId` + `executeChoice` 1): at most once; each action
 *   pinned to the object version its preview saw, dry run of every action,
 *   then apply in order, then wait for the changed workloads' rollouts
 *   (with rollback advice when one does not finish), then a short follow-up check;
 * - stop (`sessionId` + `executeChoice` 2): nothing applied;
 * - look (`sessionId` alone): the session as it stands.
 */
export class Remediate implements ToolHandler<Input> {
  private readonly investigate: Investigate;
  private readonly verify: VerifyFix;
  private readonly rollouts: AwaitRollouts;

  constructor(
    private readonly deps: RemediateDeps,
    /** Delivery through git of fixes to GitOps-managed objects; without it only live changes are possible. */
    private readonly deliverFix?: DeliverFix,
  ) {
    requireDependencies('Remediate', deps, AI_TOOL_SAFETY_DEPS);
    this.investigate = new Investigate(deps.llm, deps.reader, deps.tracer);
    this.verify = new VerifyFix(deps.llm, deps.reader, deps.tracer);
    this.rollouts = new AwaitRollouts(deps.reader, deps.writer, deps.rollout);
  }

  async execute(input: Input, context?: ToolContext): Promise<RemediationView> {
    return dispatchSessionCall(this.sessionTool(), parseSessionCall(input, REMEDIATE_GRAMMAR), context);
  }

  /** The steps of a remediation session as the shared dispatcher (application/sessions/session-dispatch.ts) runs them. */
  private sessionTool(): ApprovalSessionTool<Input, RemediationState, RemediationView> {
    return {
      kind: 'remediation',
      start: START,
      sessions: this.deps.sessions,
      clock: this.deps.clock,
      approval: this.deps.approval,
      requireFor: (step) => {
        if (step === 'execute') this.requireCluster();
      },
      planOf: (state) => planUnderApproval(remediationPlanDigest(state) ?? '', state.preview ?? []),
      view: remediationView,
      begin: (input, context) => this.start({ ...input, issue: input.issue! }, context),
      execute: (session, approval, call, context) =>
        this.run(session, this.deps.limits, { delivery: call.delivery, context, approval, onFailure: call.onFailure }),
    };
  }

  private async start(input: Input & { issue: string }, context?: ToolContext): Promise<RemediationView> {
    requireConfigured({ llm: this.deps.llm, cluster: this.deps.reader });
    const started = this.deps.clock.now();
    const settings = {
      mode: input.mode ?? 'manual',
      confidenceThreshold: input.confidenceThreshold ?? 0.8,
      maxRiskLevel: input.maxRiskLevel ?? 'low',
    } as const;
    const budget = new RunBudget({ maxCalls: REMEDIATE_MODEL_CALLS, ...this.deps.limits });
    // the search gives the model context; the guard checks every stored policy
    const policies = await this.deps.policies.forText(input.issue);
    const {
      analysis,
      investigation,
      namespacesRead = [],
    } = await this.investigate.execute(
      { issue: input.namespace ? `${input.issue} (namespace ${input.namespace})` : input.issue, evidence: input.evidence, policies: policiesText(policies) },
      budget,
    );
    const preview = analysis ? await previewActions(this.deps.guard, analysis.actions, new Date(this.deps.clock.now())) : undefined;
    const marks = analysis ? await markProposal(this.deps.reader, analysis.actions, this.deliverFix) : undefined;
    const gitopsRefusal = analysis && automaticRefusal(analysis.actions, marks);
    const decided =
      settings.mode === 'automatic' && analysis && preview
        ? gitopsRefusal
          ? { execute: false, reason: gitopsRefusal }
          : decideAutoExecution({
              ...settings,
              confidence: analysis.confidence,
              actions: preview.map((p) => ({
                risk: p.risk,
                description: p.description,
                target: p.target,
                sensitive: p.sensitive ?? [],
                accepted: p.dryRun.accepted,
              })),
              // the caller's words, never the namespaces the model chose to read
              namespacesNamed: namespacesNamedIn(input.issue, input.namespace),
            })
        : undefined;
    // automatic mode is the starter approving their own session (the aggregate's approveAutomatically): a second approver is someone else
    const owner = ownedBy(context).owner;
    const auto =
      decided?.execute && analysis
        ? approveAutomatically(owner, planUnderApproval(remediationPlanDigest({ analysis, preview })!, preview ?? []), this.deps.approval)
        : undefined;
    const automatic =
      auto && 'secondApprover' in auto
        ? { execute: false, reason: `not executed automatically: a second approver is needed (${auto.secondApprover})` }
        : decided;
    const session = await this.deps.sessions.create<RemediationState>('remediation', {
      owner,
      issue: input.issue,
      ...(input.evidence ? { evidenceExcerpt: input.evidence.slice(0, EVIDENCE_EXCERPT_CHARS), evidenceChars: input.evidence.length } : {}),
      settings,
      ...(analysis ? { analysis } : {}),
      investigation,
      namespacesRead,
      ...(preview ? { preview } : {}),
      ...(automatic ? { automatic } : {}),
      ...(marks ? { gitops: marks } : {}),
      investigatedAt: new Date(this.deps.clock.now()).toISOString(),
    });
    if (!automatic?.execute) return remediationView(session);
    // the follow-up check gets what is left of this run's time and tokens
    const spent = budget.usage;
    try {
      return await this.run(
        session,
        {
          timeoutMs: Math.max(1, this.deps.limits.timeoutMs - (this.deps.clock.now() - started)),
          maxTokens: Math.max(0, this.deps.limits.maxTokens - spent.inputTokens - spent.outputTokens),
        },
        // the automatic rule approved the plan it judged, on the starter's behalf
        {
          context,
          ...(auto && 'approval' in auto ? { approval: auto.approval } : {}),
          ...(input.onFailure ? { onFailure: input.onFailure } : {}),
        },
      );
    } catch (e) {
      // the caller has no session id yet: answer with the session, which recorded the failure (or was given back for another try)
      const after = e instanceof DomainError ? await this.deps.sessions.get<RemediationState>('remediation', session.id) : undefined;
      if (after && e instanceof NothingAppliedError) return remediationView(await this.noteRetry(after, e.message));
      if (!after?.state.execution) throw e;
      return remediationView(after);
    }
  }

  /** Records why automatic execution did not happen after all, so the answer (with its session id) says to try again. */
  private async noteRetry(session: Session<RemediationState>, why: string): Promise<Session<RemediationState>> {
    const saved = await this.deps.sessions.update<RemediationState>('remediation', session.id, session.revision, {
      ...session.state,
      automatic: { execute: false, reason: `automatic execution could not start: ${why}` },
    });
    return saved.conflict ? (saved.current ?? session) : saved.session;
  }

  private async run(
    session: Session<RemediationState>,
    limits: RemediateDeps['limits'],
    how: { delivery?: Delivery; context?: ToolContext; approval?: Approval; onFailure?: OnFailure } = {},
  ): Promise<RemediationView> {
    const { state } = session;
    if (!state.analysis)
      throw new ValidationError(
        `Session ${session.id} has nothing to execute: its investigation ended before an analysis (${state.investigation.limit ?? state.investigation.stoppedBy}). ${START}`,
      );
    if (state.analysis.actions.length === 0)
      throw new ValidationError(`Session ${session.id} has nothing to execute: its analysis proposes no action. ${START}`);
    const refused = (state.preview ?? []).filter((p) => !p.dryRun.accepted);
    if (refused.length) throw cannotExecute(`Session ${session.id} cannot be executed: ${refusals(refused)}. ${START}`, refused);
    const actions = state.analysis?.actions ?? [];
    requireDelivery(actions, state.gitops, how.delivery, `{"sessionId":"${session.id}","executeChoice":1}`);
    const { session: saved } = await runOnce(
      this.deps.sessions,
      'remediation',
      session,
      this.deps.clock,
      async (): Promise<RemediationOutcome> => {
        if (how.delivery === 'git') {
          if (!this.deliverFix) throw new NotConfiguredError('Delivery through git', 'this server was built without it');
          return deliverInstead(this.deps.writer, this.deliverFix, {
            sessionId: session.id,
            summary: state.issue,
            actions,
            marks: state.gitops ?? [],
            gitToken: how.context?.gitToken,
            requestedBy: how.context?.caller.username ?? 'unknown',
            now: new Date(this.deps.clock.now()),
            recording: this.recording(session, how.context).context,
          });
        }
        const started = this.deps.clock.now();
        const baseline = await this.rollouts.baseline(actions);
        const snapshot = await this.deps.verify.snapshot(uniqueTargets(actions));
        const report = await executeApproved(this.deps, actions, state.preview ?? [], this.recording(session, how.context));
        if (!report.dryRunPassed || !report.outcomes.some((o) => o.status === 'applied')) return { report };
        // the check looks once the changed workloads rolled out (or stopped trying), not mid-rollout
        // within the answer cap (SVC_VERIFY_ANSWER_MS): a rollout still going on then is the verdict's to watch
        const rollouts = await this.rollouts.wait(actions, report.outcomes, baseline, Math.min(limits.timeoutMs, answerWithinMs(this.deps.verify.settings)));
        // svc's own verdict first, deterministic; the model's check is told it as data and cannot overrule it
        const health = await this.deps.verify.verify({
          snapshot,
          writes: executedWrites(actions, report.outcomes),
          deadlineMs: limits.timeoutMs - (this.deps.clock.now() - started),
          onFailure: onFailureFor(how.onFailure, this.deps.verify.settings, session.state.automatic?.execute === true),
          ...(how.context ? { caller: how.context.caller } : {}),
          tool: 'remediate',
          onLaterVerdict: laterVerdictOn<RemediationOutcome>(this.deps.sessions, this.deps.clock, 'remediation', session.id),
        });
        const applied = report.outcomes
          .map((o) => `${o.action}. ${o.status}: ${o.description}${o.message ? ` (${o.message})` : ''}\n   ${o.kubectl}`)
          .join('\n');
        const verification = await this.verify.execute(
          {
            issue: state.issue,
            rootCause: state.analysis?.rootCause ?? '',
            applied: applied.slice(0, 8000),
            rollouts: rolloutLines(rollouts).slice(0, 4000),
            ...(health ? { svcVerdict: verdictLines(health).slice(0, 4000) } : {}),
          },
          new RunBudget({ maxCalls: VERIFY_MODEL_CALLS, ...limits, timeoutMs: Math.max(1, limits.timeoutMs - (this.deps.clock.now() - started)) }),
        );
        return { report, ...(rollouts.length ? { rollouts } : {}), ...(health ? { health } : {}), verification };
      },
      START,
      how.approval,
    );
    return remediationView(saved);
  }

  /** Each write recorded for the caller (anonymous outside a request): approved by them (executeChoice 1), or by the automatic rule that allowed it. */
  private recording(session: Session<RemediationState>, context: ToolContext | undefined): WriteRecording {
    const auto = session.state.automatic;
    const run = context ?? { caller: callerIn(context) };
    return {
      recorder: this.deps.recorder,
      context: writeContextFor('remediate', session.id, session.state.issue, run, auto?.execute ? { mode: 'automatic', rule: auto.reason } : undefined),
    };
  }

  private requireCluster(): void {
    requireConfigured({ cluster: this.deps.reader });
  }
}
