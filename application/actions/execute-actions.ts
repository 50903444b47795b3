import { actionTarget, kubectlEquivalent, type ClusterAction, type ClusterOperation } from '../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { LedgerIntentError, type RecordedWrite, type WriteContext, type WriteRecorder } from '../ledger/change-recorder.js';
import { DomainError } from '../../domain/errors.js';
import { sentChangeOf } from '../guarded-write/operation-calls.js';

export { dryRunOperation, sentChangeOf } from '../guarded-write/operation-calls.js';

export interface DryRunRefusal {
  /** 1-based position of the action in the proposal. */
  action: number;
  description: string;
  reason: string;
  /** The API server's message. */
  message: string;
  causes: { field?: string; message: string }[];
}

export interface ActionOutcome {
  action: number;
  description: string;
  kubectl: string;
  status: 'applied' | 'failed' | 'not-run';
  message?: string;
  /** The API server's `Warning` headers: on the write itself when it was sent, else on its dry run at execution. */
  warnings?: string[];
  /** The change ledger entry of this write (applied or refused). */
  ledgerId?: string;
  /** Set when the write could not be recorded (it happened all the same). */
  ledgerError?: string;
}

/** Where each write of an execution is recorded: the one ChangeRecorder, and who and what the run is for. Required: svc sends no write it does not record. */
export interface WriteRecording {
  recorder: WriteRecorder;
  context: WriteContext;
}

export interface ExecutionReport {
  /** false when a dry run refused an action: then nothing was applied. */
  dryRunPassed: boolean;
  refused?: DryRunRefusal;
  outcomes: ActionOutcome[];
}

/** One action whose execute-time check passed: the operation exactly as it is sent, and what its dry run said the server would store. */
export interface CheckedAction {
  /** The action, carrying the risk svc assessed (the ledger records it). */
  action: ClusterAction;
  operation: ClusterOperation;
  dryRun: { object: KubeObject; warnings?: string[] };
}

/** Every action of an execution reported not run. */
export function notRun(actions: readonly ClusterAction[], refused: DryRunRefusal): ExecutionReport {
  return {
    dryRunPassed: false,
    refused,
    outcomes: actions.map((a, j) => ({ action: j + 1, description: a.description, kubectl: kubectlEquivalent(a), status: 'not-run' })),
  };
}

/**
 * Applies, in order, actions whose execute-time checks (the guarded-write
 * pipeline: dry run, guard, policies) all passed; a failure stops the rest
 * (they are reported `not-run`), since later actions may rely on earlier
 * ones. Each write goes through the ChangeRecorder: one ledger entry per
 * write, its id in the action's outcome; an intent the ledger cannot take
 * stops the execution (LedgerIntentError, naming what was applied before).
 */
export async function executeActions(
  send: (op: ClusterOperation, warnings: string[]) => Promise<KubeObject | undefined>,
  checked: readonly CheckedAction[],
  recording: WriteRecording,
): Promise<ExecutionReport> {
  const outcomes: ActionOutcome[] = [];
  let failed = false;
  for (const [i, c] of checked.entries()) {
    const base = { action: i + 1, description: c.action.description, kubectl: kubectlEquivalent(c.action) };
    if (failed) {
      outcomes.push({ ...base, ...(c.dryRun.warnings?.length ? { warnings: c.dryRun.warnings } : {}), status: 'not-run', message: 'an earlier action failed' });
      continue;
    }
    const written: string[] = [];
    let done: RecordedWrite;
    try {
      done = await record(recording, c, () => send(c.operation, written));
    } catch (e) {
      // the ledger could not record this write's intent: it was not sent, and neither is any after it
      if (e instanceof LedgerIntentError && outcomes.length) throw new LedgerIntentError(`${e.message}. ${appliedBefore(outcomes)}`, e.details);
      throw e;
    }
    // a write that was not stored answers no headers: its dry run's stand
    const shown = done.error === undefined ? written : (c.dryRun.warnings ?? []);
    const ledger = {
      ...(shown.length ? { warnings: shown } : {}),
      ...(done.ledgerId ? { ledgerId: done.ledgerId } : {}),
      ...(done.ledgerError ? { ledgerError: done.ledgerError } : {}),
    };
    if (done.error === undefined) outcomes.push({ ...base, status: 'applied', ...ledger });
    else {
      failed = true;
      // domain errors carry safe messages; anything else is not echoed
      const message = done.error instanceof DomainError ? done.error.message : 'the cluster call failed unexpectedly';
      outcomes.push({ ...base, status: 'failed', message, ...ledger });
    }
  }
  return { dryRunPassed: true, outcomes };
}

/** What an execution stopped by the ledger had done before: the caller must know what is live. */
function appliedBefore(outcomes: ActionOutcome[]): string {
  const done = outcomes.filter((o) => o.status === 'applied');
  const listed = done.map((o) => `${o.action}. ${o.description}${o.ledgerId ? ` (change ledger entry ${o.ledgerId})` : ''}`).join('; ');
  return done.length ? `Applied before it: ${listed}. The actions after it were not run` : 'No action was applied';
}

/** One write through the recorder (the hook of the change ledger), its failure handed back. */
function record(recording: WriteRecording, c: CheckedAction, write: () => Promise<KubeObject | undefined>): Promise<RecordedWrite> {
  return recording.recorder.write(
    recording.context,
    {
      target: actionTarget(c.action),
      change: sentChangeOf(c.operation),
      rationale: c.action.rationale,
      risk: c.action.risk,
      dryRun: { accepted: true, object: c.dryRun.object },
    },
    write,
  );
}
