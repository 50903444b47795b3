import { kubectlEquivalent, type ClusterAction } from '../../domain/actions/cluster-action.js';
import type { Session } from '../../domain/sessions/session.js';
import type { RemediateOutput } from '../../domain/tools/outputs/remediate-output.js';
import { rolloutLines } from '../actions/await-rollouts.js';
import type { ExecutionRecord } from '../actions/run-once.js';
import type { RemediationOutcome, RemediationState, RunSummary, VerificationResult } from './remediation-state.js';

export type RemediationStatus =
  'awaiting_approval' | 'executing' | 'executed' | 'not_executed' | 'execution_failed' | 'stopped' | 'no_action' | 'investigation_incomplete';

export type ActionView = ClusterAction & { action: number; kubectl: string };

/** What remediate answers, from the session as stored. */
export interface RemediationView {
  sessionId: string;
  status: RemediationStatus;
  issue: string;
  rootCause?: string;
  confidence?: number;
  evidence?: string[];
  actions: ActionView[];
  investigation: RunSummary & { findings?: string };
  settings: RemediationState['settings'];
  automaticExecution?: { executed: boolean; reason: string };
  execution?: ExecutionRecord<Omit<RemediationOutcome, 'verification'>>;
  verification?: VerificationResult;
  message: string;
  nextStep: string;
  expiresAt: string;
}

const START = 'Start a new investigation with remediate and an issue.';

export function remediationStatus(s: RemediationState): RemediationStatus {
  const e = s.execution;
  if (e?.status === 'running') return 'executing';
  if (e?.status === 'failed') return 'execution_failed';
  if (e?.outcome) {
    if (!e.outcome.report.dryRunPassed) return 'not_executed';
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
  const verification = s.execution?.outcome?.verification;
  const outcome = s.execution?.outcome;
  const execution = s.execution && {
    ...s.execution,
    ...(outcome ? { outcome: { report: outcome.report, ...(outcome.rollouts ? { rollouts: outcome.rollouts } : {}) } } : {}),
  };
  return {
    sessionId: session.id,
    status,
    issue: s.issue,
    ...(s.analysis ? { rootCause: s.analysis.rootCause, confidence: s.analysis.confidence, evidence: s.analysis.evidence } : {}),
    actions: (s.analysis?.actions ?? []).map((a, i) => ({ action: i + 1, ...a, kubectl: kubectlEquivalent(a) })),
    investigation: s.investigation,
    settings: s.settings,
    ...(s.automatic ? { automaticExecution: { executed: s.automatic.execute && !!s.execution, reason: s.automatic.reason } } : {}),
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
    case 'awaiting_approval':
      return {
        message:
          s.automatic && !s.automatic.execute
            ? `Automatic mode did not act: ${s.automatic.reason}. ${n} action(s) proposed; nothing was changed.`
            : `${n} action(s) proposed; nothing was changed.`,
        nextStep: `Call remediate with {"sessionId":"${id}","executeChoice":1} to execute (every action is dry-run on the API server first), or with {"sessionId":"${id}","executeChoice":2} to stop.`,
      };
    case 'executing':
      return { message: 'Another request is executing this session.', nextStep: `Call remediate with {"sessionId":"${id}"} to see its outcome.` };
    case 'executed':
      return {
        message: `Applied ${n} action(s).${rolled}${checked}`,
        nextStep: verdict?.resolved === true ? 'Nothing more to do.' : `Look at the cluster, or ${START.toLowerCase()}`,
      };
    case 'not_executed': {
      const r = report?.refused;
      return { message: `Nothing was applied: the API server refused the dry run of action ${r?.action} (${r?.description}): ${r?.message}`, nextStep: START };
    }
    case 'execution_failed': {
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
