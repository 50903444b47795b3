import { kubectlEquivalent, type ClusterAction } from '../../domain/actions/cluster-action.js';
import type { Session } from '../../domain/sessions/session.js';
import type { RemediateOutput } from '../../domain/tools/outputs/remediate-output.js';
import { rolloutLines } from '../actions/await-rollouts.js';
import { healthStep } from '../actions/verify-execution.js';
import { refusals, type ProposedAction } from '../actions/proposed-action.js';
import type { ExecutionRecord } from '../actions/run-once.js';
import type { GitopsMark } from '../../domain/gitops/gitops-ownership.js';
import type { DeliveredFix } from '../gitops/deliver-fix.js';
import { gitDeliverable, gitopsWarning } from '../gitops/gitops-gate.js';
import { remediationPlanDigest, type RemediationOutcome, type RemediationState, type RunSummary, type VerificationResult } from './remediation-state.js';

export type RemediationStatus =
  | 'awaiting_approval'
  | 'executing'
  | 'executed'
  | 'delivered_to_git'
  | 'not_executed'
  | 'execution_failed'
  | 'stopped'
  | 'no_action'
  | 'investigation_incomplete';

/** An action as proposed, with its preview when it has one (sessions stored before previews existed have none). */
export type ActionView = ClusterAction & { action: number; kubectl: string; gitops?: GitopsMark } & Partial<
    Pick<ProposedAction, 'riskReasons' | 'sensitive' | 'effect' | 'dryRun' | 'diff' | 'diffOmitted' | 'warnings' | 'resourceVersion'>
  >;

function actionView(a: ClusterAction, i: number, p: ProposedAction | undefined): ActionView {
  if (!p) return { action: i + 1, ...a, kubectl: kubectlEquivalent(a) };
  const { action: _n, type: _t, description: _d, rationale: _r, target: _g, kubectl, ...preview } = p;
  return { action: i + 1, ...a, kubectl, ...preview };
}

/** What remediate answers, from the session as stored. */
export interface RemediationView {
  sessionId: string;
  status: RemediationStatus;
  issue: string;
  rootCause?: string;
  confidence?: number;
  evidence?: string[];
  actions: ActionView[];
  /** The digest of the plan as previewed: what executeChoice 1 approves. */
  planDigest?: string;
  investigation: RunSummary & { findings?: string };
  settings: RemediationState['settings'];
  automaticExecution?: { executed: boolean; reason: string };
  warning?: string;
  gitDelivery?: DeliveredFix;
  execution?: ExecutionRecord<Omit<RemediationOutcome, 'verification'>>;
  verification?: VerificationResult;
  message: string;
  nextStep: string;
  expiresAt: string;
}

/** Refusals svc makes itself (the allow-lists, the organisation's policies), not the API server. */
const SVC_REFUSALS: ReadonlySet<string> = new Set(['OutsideWriteScope', 'PolicyViolation', 'PoliciesUnreadable']);
const START = 'Start a new investigation with remediate and an issue.';

export function remediationStatus(s: RemediationState): RemediationStatus {
  const e = s.execution;
  if (e?.status === 'running') return 'executing';
  if (e?.status === 'failed') return 'execution_failed';
  if (e?.outcome) {
    if (!e.outcome.report.dryRunPassed) return 'not_executed';
    if (e.outcome.gitDelivery) return 'delivered_to_git';
    // svc's verdict decides, whatever the model's check says
    if (e.outcome.health?.verdict === 'degraded') return 'execution_failed';
    return e.outcome.report.outcomes.every((o) => o.status === 'applied') ? 'executed' : 'execution_failed';
  }
  if (s.stopped) return 'stopped';
  if (!s.analysis) return 'investigation_incomplete';
  return s.analysis.actions.length === 0 ? 'no_action' : 'awaiting_approval';
}

// the answer is held to the tool's published output schema at compile time too
const _fitsOutput = (v: RemediationView): RemediateOutput => v;
void _fitsOutput;

export function remediationView(session: Session<RemediationState>): RemediationView {
  const s = session.state;
  const status = remediationStatus(s);
  const planDigest = remediationPlanDigest(s);
  const verification = s.execution?.outcome?.verification;
  const outcome = s.execution?.outcome;
  const execution = s.execution && {
    ...s.execution,
    ...(outcome
      ? {
          outcome: {
            report: outcome.report,
            ...(outcome.rollouts ? { rollouts: outcome.rollouts } : {}),
            ...(outcome.health ? { health: outcome.health } : {}),
          },
        }
      : {}),
  };
  return {
    sessionId: session.id,
    status,
    issue: s.issue,
    ...(s.analysis ? { rootCause: s.analysis.rootCause, confidence: s.analysis.confidence, evidence: s.analysis.evidence } : {}),
    actions: (s.analysis?.actions ?? []).map((a, i) => ({ ...actionView(a, i, s.preview?.[i]), ...(s.gitops?.[i] ? { gitops: s.gitops[i]! } : {}) })),
    ...(planDigest ? { planDigest } : {}),
    investigation: s.investigation,
    settings: s.settings,
    ...(s.automatic ? { automaticExecution: { executed: s.automatic.execute && !!s.execution, reason: s.automatic.reason } } : {}),
    ...gitopsWords(s),
    ...(execution ? { execution } : {}),
    ...(verification ? { verification } : {}),
    ...words(session, status),
    expiresAt: new Date(session.expiresAt).toISOString(),
  };
}

function words(session: Session<RemediationState>, status: RemediationStatus): { message: string; nextStep: string } {
  const s = session.state;
  const id = session.id;
  const n = s.analysis?.actions.length ?? 0;
  const report = s.execution?.outcome?.report;
  const verdict = s.execution?.outcome?.verification;
  const unfinished = (s.execution?.outcome?.rollouts ?? []).filter((r) => r.state !== 'rolled-out');
  const rolled = unfinished.length ? ` Not rolled out: ${rolloutLines(unfinished).replace(/\n/g, '; ')}.` : '';
  const checked = verdict
    ? ` Follow-up check: ${verdict.resolved === true ? 'resolved' : verdict.resolved === false ? 'not resolved' : 'unknown'}: ${verdict.summary}`
    : '';
  switch (status) {
    case 'awaiting_approval': {
      const refused = (s.preview ?? []).filter((p) => !p.dryRun.accepted);
      if (refused.length)
        return {
          message: `${n} action(s) proposed; nothing was changed. It cannot be executed: ${refusals(refused)}.`,
          nextStep: `Call remediate with {"sessionId":"${id}","executeChoice":2} to close it, and ${START.toLowerCase()}`,
        };
      return {
        message:
          s.automatic && !s.automatic.execute
            ? `Automatic mode did not act: ${s.automatic.reason}. ${n} action(s) proposed; nothing was changed.`
            : `${n} action(s) proposed; nothing was changed.`,
        nextStep: s.gitops
          ? `Call remediate with ${gitDeliverable(s.analysis?.actions ?? [], s.gitops) ? `{"sessionId":"${id}","executeChoice":1,"delivery":"git"} to commit the fix to the source repository, ` : ''}{"sessionId":"${id}","executeChoice":1,"delivery":"live"} to change the cluster anyway (the controller reverts it), or {"sessionId":"${id}","executeChoice":2} to stop.`
          : `Call remediate with {"sessionId":"${id}","executeChoice":1} to execute (every action is dry-run on the API server first), or with {"sessionId":"${id}","executeChoice":2} to stop.`,
      };
    }
    case 'executing':
      return { message: 'Another request is executing this session.', nextStep: `Call remediate with {"sessionId":"${id}"} to see its outcome.` };
    case 'delivered_to_git': {
      const d = s.execution!.outcome!.gitDelivery!;
      const pr = d.pullRequest ? `; pull request ${d.pullRequest.url}` : d.note ? ` (${d.note})` : '';
      return {
        message: `Nothing was changed in the cluster: the fix was ${d.changed ? 'committed' : 'already'} on ${d.branch} of ${d.repository} (commit ${d.commit.slice(0, 12)})${pr}.`,
        nextStep: d.pullRequest
          ? `Review and merge ${d.pullRequest.url}; the GitOps controller then applies the fix.`
          : `Open a pull request from ${d.branch} into ${d.baseBranch} and merge it; the GitOps controller then applies the fix.`,
      };
    }
    case 'executed':
      return {
        message: `Applied ${n} action(s).${rolled}${s.execution?.outcome?.health ? ` svc's verdict: ${s.execution.outcome.health.summary}` : ''}${checked}`,
        nextStep: verdict?.resolved === true ? 'Nothing more to do.' : `Look at the cluster, or ${START.toLowerCase()}`,
      };
    case 'not_executed': {
      const r = report?.refused;
      const by = r && SVC_REFUSALS.has(r.reason) ? 'svc refused' : 'the API server refused the dry run of';
      return { message: `Nothing was applied: ${by} action ${r?.action} (${r?.description}): ${r?.message}`, nextStep: START };
    }
    case 'execution_failed': {
      const health = s.execution?.outcome?.health;
      if (health?.verdict === 'degraded')
        return {
          message: `Applied ${report?.outcomes.filter((o) => o.status === 'applied').length ?? 0} action(s); svc's verdict: degraded.${rolled} ${healthStep(health, 'execution.outcome.health')}${checked}`,
          nextStep: health.notReverted?.length
            ? `Look at the cluster now: not everything was reverted (execution.outcome.health.notReverted says why, with kubectl commands as the last resort); ${START.toLowerCase()}`
            : health.reverted?.length
              ? `The change was reverted; ${START.toLowerCase()}`
              : `Revert it: ${health.revertCalls?.map((c) => c.cli).join(', then ') ?? 'by hand'}; or ${START.toLowerCase()}`,
        };
      const failed = report?.outcomes.find((o) => o.status === 'failed');
      const applied = report?.outcomes.filter((o) => o.status === 'applied').length ?? 0;
      const why = failed ? `action ${failed.action} (${failed.description}) failed: ${failed.message}` : `the execution failed: ${s.execution?.error}`;
      return {
        message: `${why}. ${applied} action(s) before it were applied; the rest were not run.${checked}`,
        nextStep: `Look at the cluster before anything else; ${START.toLowerCase()}`,
      };
    }
    case 'stopped':
      return { message: `Stopped at ${s.stopped?.at}; nothing was applied.`, nextStep: START };
    case 'no_action':
      return { message: 'The analysis proposes no change to the cluster.', nextStep: `Nothing to execute. ${START}` };
    case 'investigation_incomplete':
      return {
        message: `The investigation ended before a usable analysis: ${s.investigation.limit ?? s.investigation.stoppedBy}. What was found so far is under investigation.`,
        nextStep: `Nothing to execute. ${START} (a narrower issue or more evidence helps)`,
      };
  }
}

/** The GitOps warning of a proposal (again after a live change), and the git delivery when there was one. */
function gitopsWords(s: RemediationState): { warning?: string; gitDelivery?: DeliveredFix } {
  const delivered = s.execution?.outcome?.gitDelivery;
  if (delivered) return { gitDelivery: delivered };
  const warning = gitopsWarning(s.analysis?.actions ?? [], s.gitops);
  if (!warning) return {};
  const live = s.execution?.outcome?.report.outcomes.some((o) => o.status === 'applied');
  return {
    warning: live
      ? `Changed live although managed by GitOps: the controller will revert it at its next sync unless the source changes too. ${warning}`
      : warning,
  };
}
