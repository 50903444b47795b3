import type { Owned } from '../../domain/auth/session-owner.js';
import type { ClusterAction, RiskLevel } from '../../domain/actions/cluster-action.js';
import type { RemediationAnalysis, Verification } from '../../domain/remediation/remediation-analysis.js';
import type { RolloutReport } from '../actions/await-rollouts.js';
import type { ExecutionReport } from '../actions/execute-actions.js';
import type { ProposedAction } from '../actions/proposed-action.js';
import type { Executable } from '../actions/run-once.js';
import type { ExecutionVerification } from '../actions/verify-execution.js';
import { planDigestOf } from '../../domain/sessions/approval-session.js';
import type { LoopStop } from '../ai/tool-loop.js';
import type { DeliveredFix } from '../gitops/deliver-fix.js';
import type { ProposalMarks } from '../gitops/gitops-gate.js';

/** One function the model called, as the answer and the session show it. */
export interface CalledFunction {
  name: string;
  arguments: string;
  ok: boolean;
  error?: string;
}

/** How a model run went: calls made, what it called, and what ended it. */
export interface RunSummary {
  modelCalls: number;
  /** The first calls (at most 40); `functionCallCount` counts them all. */
  functionsCalled: CalledFunction[];
  functionCallCount: number;
  stoppedBy: LoopStop | 'analysis-unusable';
  /** In words, when a limit or a failure ended the run before a usable answer. */
  limit?: string;
  tokens: { input: number; output: number };
}

export interface RemediationSettings {
  mode: 'manual' | 'automatic';
  confidenceThreshold: number;
  maxRiskLevel: RiskLevel;
}

/** The follow-up check after execution; `resolved` null when it could not tell. */
export interface VerificationResult extends Omit<Verification, 'resolved'> {
  resolved: boolean | null;
  run: RunSummary;
}

/** What one execution did: the dry runs and applies, the rollouts waited for, then the follow-up check (when anything was applied). */
export interface RemediationOutcome {
  report: ExecutionReport;
  /** The changed Deployments, StatefulSets and DaemonSets; absent when none was changed. */
  rollouts?: RolloutReport[];
  /** svc's deterministic verdict after the write, before the model's check (which cannot turn degraded into success). */
  health?: ExecutionVerification;
  verification?: VerificationResult;
  /** With delivery git: the commit instead of a live change (then nothing was applied). */
  gitDelivery?: DeliveredFix;
}

/** A remediation session's state (kind `remediation`). */
export interface RemediationState extends Executable<RemediationOutcome>, Owned {
  issue: string;
  /** The caller's evidence, first characters only (the model saw all of it). */
  evidenceExcerpt?: string;
  evidenceChars?: number;
  settings: RemediationSettings;
  /** Absent when the investigation ended before a usable analysis. */
  analysis?: Omit<RemediationAnalysis, 'actions'> & { actions: ClusterAction[] };
  investigation: RunSummary & { findings?: string };
  /** Namespaces the investigation's function calls read (shown; automatic mode writes only where the issue names). */
  namespacesRead?: string[];
  /** Each action as previewed when it was proposed (dry run, diff, svc's risk, the pinned resourceVersion): what is approved. */
  preview?: ProposedAction[];
  automatic?: { execute: boolean; reason: string };
  /** Per action, the GitOps controller that manages its object (null: none); absent when none does. */
  gitops?: ProposalMarks;
  investigatedAt: string;
}

/** The digest of the plan a remediation session proposes (its actions and their previews); undefined without an analysis. */
export function remediationPlanDigest(s: Pick<RemediationState, 'analysis' | 'preview'>): string | undefined {
  return s.analysis ? planDigestOf({ actions: s.analysis.actions, preview: s.preview ?? [] }) : undefined;
}
