import {
  actionTarget,
  kubectlEquivalent,
  pinnedOperation,
  type ActionPin,
  type ClusterAction,
  type ClusterOperation,
} from '../../domain/actions/cluster-action.js';
import type { DryRunResult, KubeObject } from '../../domain/cluster/kube-types.js';
import { applyBody, createBody, deleteBody, patchBody } from '../../domain/cluster/write-bodies.js';
import type { SentChange } from '../../domain/ledger/change-entry.js';
import { LedgerIntentError, type ChangeRecorder, type RecordedWrite, type WriteContext } from '../ledger/change-recorder.js';
import { DependencyError, DomainError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import { NothingAppliedError } from './run-once.js';

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

/** Where each write of an execution is recorded: the one ChangeRecorder, and who and what the run is for. */
export interface WriteRecording {
  recorder: ChangeRecorder;
  context: WriteContext;
}

/** The exact call an operation sends, as the ledger records it: the body with its resourceVersion precondition, as the adapter sends it. */
export function sentChangeOf(op: ClusterOperation): SentChange {
  switch (op.method) {
    case 'apply':
      return { method: 'apply', patchType: 'apply', body: applyBody(op.manifest, op.resourceVersion) };
    case 'create':
      return { method: 'create', body: createBody(op.manifest) };
    case 'patch':
      return { method: 'patch', patchType: op.patchType, body: patchBody(op.patch, op.resourceVersion) };
    case 'delete': {
      const body = deleteBody(op.resourceVersion, op.uid);
      return { method: 'delete', ...(body ? { body } : {}) };
    }
  }
}

/** A check of the object an action's execute-time dry run returned (the organisation's policies): a refusal stops the execution before any write, like the API server's. */
export type ExecutionJudge = (action: ClusterAction, result: KubeObject) => { reason: string; message: string } | undefined;

export interface ExecutionReport {
  /** false when a dry run refused an action: then nothing was applied. */
  dryRunPassed: boolean;
  refused?: DryRunRefusal;
  outcomes: ActionOutcome[];
}

/** The server-side dry run of one operation: the server's verdict, not an exception. */
export async function dryRunOperation(writer: ClusterWriter, op: ClusterOperation): Promise<DryRunResult> {
  const pin = op.resourceVersion ? { resourceVersion: op.resourceVersion } : {};
  switch (op.method) {
    case 'apply':
      return writer.dryRunApply(op.manifest, pin);
    case 'create':
      return writer.dryRunCreate(op.manifest);
    case 'patch':
      return writer.dryRunPatch(op.ref, op.patch, { patchType: op.patchType, ...pin });
    case 'delete':
      return writer.dryRunDelete(op.ref, { ...pin, ...(op.uid ? { uid: op.uid } : {}) });
  }
}

/** The write itself; the object as stored (undefined after a delete), which the ledger records. The server's warnings go to `warnings`. */
async function run(writer: ClusterWriter, op: ClusterOperation, warnings: string[]): Promise<KubeObject | undefined> {
  const pin = op.resourceVersion ? { resourceVersion: op.resourceVersion } : {};
  switch (op.method) {
    case 'apply':
      return writer.apply(op.manifest, { ...pin, warnings });
    case 'create':
      return writer.create(op.manifest, { warnings });
    case 'patch':
      return writer.patch(op.ref, op.patch, { patchType: op.patchType, ...pin, warnings });
    case 'delete':
      await writer.delete(op.ref, { ...pin, ...(op.uid ? { uid: op.uid } : {}) });
      return undefined;
  }
}

/**
 * Server-side dry run of every action first; if any is refused, nothing is
 * applied and the report names the action and the API server's message.
 * Otherwise the actions are applied in order; a failure stops the rest
 * (they are reported `not-run`), since later actions may rely on earlier ones.
 * `pins[i]`: what action i was approved against (pinnedOperation), sent as
 * the precondition of its dry run and write: the resourceVersion (a change
 * made since is a 409 Conflict, never overwritten), a delete's uid, or the
 * object's absence (the apply is sent as a create: one that appeared since
 * is a 409 AlreadyExists, never overwritten). A dependency failure during the dry runs is
 * NothingAppliedError: the caller may try again. With `recording`, each write
 * goes through the ChangeRecorder: one ledger entry per write, its id in the
 * action's outcome. With `judge`, each accepted dry run's object is judged
 * too; a refusal there applies nothing, as a refused dry run.
 */
export async function executeActions(
  writer: ClusterWriter,
  actions: ClusterAction[],
  clock: Clock,
  pins: readonly (string | ActionPin | undefined)[] = [],
  recording?: WriteRecording,
  judge?: ExecutionJudge,
): Promise<ExecutionReport> {
  const now = new Date(clock.now());
  const ops = actions.map((a, i) => {
    const pin = pins[i];
    return pinnedOperation(a, now, typeof pin === 'string' ? { resourceVersion: pin } : pin);
  });
  const warnings: (string[] | undefined)[] = [];
  const dryRuns: DryRunResult[] = [];
  for (const [i, op] of ops.entries()) {
    let verdict: DryRunResult;
    try {
      verdict = await dryRunOperation(writer, op);
    } catch (e) {
      if (e instanceof DependencyError) throw new NothingAppliedError(e);
      throw e;
    }
    const judged = verdict.accepted ? judge?.(actions[i], verdict.object) : undefined;
    if (judged) verdict = { accepted: false, ...judged, causes: [] };
    dryRuns.push(verdict);
    if (verdict.accepted) warnings.push(verdict.warnings);
    else {
      return {
        dryRunPassed: false,
        refused: { action: i + 1, description: actions[i].description, reason: verdict.reason, message: verdict.message, causes: verdict.causes },
        outcomes: actions.map((a, j) => ({ action: j + 1, description: a.description, kubectl: kubectlEquivalent(a), status: 'not-run' })),
      };
    }
  }
  const outcomes: ActionOutcome[] = [];
  let failed = false;
  for (const [i, op] of ops.entries()) {
    const base = { action: i + 1, description: actions[i].description, kubectl: kubectlEquivalent(actions[i]) };
    if (failed) {
      outcomes.push({ ...base, ...(warnings[i]?.length ? { warnings: warnings[i] } : {}), status: 'not-run', message: 'an earlier action failed' });
      continue;
    }
    const written: string[] = [];
    let done: RecordedWrite;
    try {
      done = await send(writer, op, written, recording && { recording, action: actions[i], dryRun: dryRuns[i] });
    } catch (e) {
      // the ledger could not record this write's intent: it was not sent, and neither is any after it
      if (e instanceof LedgerIntentError && outcomes.length) throw new LedgerIntentError(`${e.message}. ${appliedBefore(outcomes)}`, e.details);
      throw e;
    }
    // a write that was not stored answers no headers: its dry run's stand
    const shown = done.error === undefined ? written : (warnings[i] ?? []);
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

/** One write, through the recorder when there is one (the hook of the change ledger), its failure handed back. */
async function send(
  writer: ClusterWriter,
  op: ClusterOperation,
  warnings: string[],
  ledger: { recording: WriteRecording; action: ClusterAction; dryRun: DryRunResult } | undefined,
): Promise<RecordedWrite> {
  const write = () => run(writer, op, warnings);
  if (!ledger)
    return write().then(
      (object) => ({ object }),
      (error: unknown) => ({ error }),
    );
  const { recording, action, dryRun } = ledger;
  return recording.recorder.write(
    recording.context,
    {
      target: actionTarget(action),
      change: sentChangeOf(op),
      rationale: action.rationale,
      risk: action.risk,
      dryRun: { accepted: true, object: dryRun.accepted ? dryRun.object : undefined },
    },
    write,
  );
}
