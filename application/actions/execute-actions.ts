import { kubectlEquivalent, toOperation, type ClusterAction, type ClusterOperation } from '../../domain/actions/cluster-action.js';
import type { DryRunResult } from '../../domain/cluster/kube-types.js';
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
  /** The API server's warnings on this action's dry run at execution. */
  warnings?: string[];
}

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
    case 'patch':
      return writer.dryRunPatch(op.ref, op.patch, { patchType: op.patchType, ...pin });
    case 'delete':
      return writer.dryRunDelete(op.ref, pin);
  }
}

async function run(writer: ClusterWriter, op: ClusterOperation): Promise<void> {
  const pin = op.resourceVersion ? { resourceVersion: op.resourceVersion } : {};
  switch (op.method) {
    case 'apply':
      await writer.apply(op.manifest, pin);
      return;
    case 'patch':
      await writer.patch(op.ref, op.patch, { patchType: op.patchType, ...pin });
      return;
    case 'delete':
      await writer.delete(op.ref, pin);
  }
}

/**
 * Server-side dry run of every action first; if any is refused, nothing is
 * applied and the report names the action and the API server's message.
 * Otherwise the actions are applied in order; a failure stops the rest
 * (they are reported `not-run`), since later actions may rely on earlier ones.
 * `pins[i]`: the resourceVersion action i was approved against, sent as the
 * precondition of its dry run and write (a change made since is a 409
 * Conflict, never overwritten). A dependency failure during the dry runs is
 * NothingAppliedError: the caller may try again.
 */
export async function executeActions(
  writer: ClusterWriter,
  actions: ClusterAction[],
  clock: Clock,
  pins: readonly (string | undefined)[] = [],
): Promise<ExecutionReport> {
  const now = new Date(clock.now());
  const ops = actions.map((a, i) => toOperation(a, now, pins[i]));
  const warnings: (string[] | undefined)[] = [];
  for (const [i, op] of ops.entries()) {
    let verdict: DryRunResult;
    try {
      verdict = await dryRunOperation(writer, op);
    } catch (e) {
      if (e instanceof DependencyError) throw new NothingAppliedError(e);
      throw e;
    }
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
    const base = {
      action: i + 1,
      description: actions[i].description,
      kubectl: kubectlEquivalent(actions[i]),
      ...(warnings[i]?.length ? { warnings: warnings[i] } : {}),
    };
    if (failed) {
      outcomes.push({ ...base, status: 'not-run', message: 'an earlier action failed' });
      continue;
    }
    try {
      await run(writer, op);
      outcomes.push({ ...base, status: 'applied' });
    } catch (e) {
      failed = true;
      // domain errors carry safe messages; anything else is not echoed
      outcomes.push({ ...base, status: 'failed', message: e instanceof DomainError ? e.message : 'the cluster call failed unexpectedly' });
    }
  }
  return { dryRunPassed: true, outcomes };
}
