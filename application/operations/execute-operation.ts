import type { ClusterAction } from '../../domain/actions/cluster-action.js';
import type { Caller } from '../../domain/auth/caller.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import { summarizeObject } from '../../domain/cluster/object-summary.js';
import { DomainError } from '../../domain/errors.js';
import { AwaitRollouts, uniqueTargets, type RolloutWaitOptions } from '../actions/await-rollouts.js';
import { executeApproved } from '../actions/execute-approved.js';
import type { WriteRecording } from '../actions/execute-actions.js';
import type { ProposedAction } from '../actions/proposed-action.js';
import { answerWithinMs, executedWrites, type ExecutionVerification, type OnFailure } from '../actions/verify-execution.js';
import type { AiToolDeps } from '../ai/ai-tool-deps.js';
import { requireDependencies } from '../required-deps.js';
import type { ExecutionOutcome } from './operation-state.js';

export type { RolloutWaitOptions } from '../actions/await-rollouts.js';

/**
 * Runs an approved operation: executeApproved (every action through the
 * guarded-write pipeline again, pinned to the object version its preview
 * saw, then applied in order, each recorded), then the shared rollout wait
 * (AwaitRollouts: each Deployment, StatefulSet and DaemonSet it changed,
 * bounded by what is left of the run, with rollback advice for one that did
 * not finish). Then the deterministic verdict over the
 * settle window against a snapshot taken before the write, and on
 * `degraded` the revert (or the report) onFailure asks for. Reports each
 * touched object's state at the end.
 */
export class ExecuteOperation {
  private readonly rollouts: AwaitRollouts;

  constructor(
    private readonly deps: Pick<AiToolDeps, 'guard' | 'reader' | 'writer' | 'clock' | 'verify'>,
    options: RolloutWaitOptions = {},
  ) {
    requireDependencies('ExecuteOperation', deps, ['guard', 'verify']);
    this.rollouts = new AwaitRollouts(deps.reader, deps.writer, options);
  }

  /** `deadlineMs`: what is left of the run's wall-clock limit (SVC_AI_TIMEOUT_MS); `recording`: where each write is recorded. */
  async execute(
    actions: ClusterAction[],
    approved: readonly ProposedAction[],
    deadlineMs: number,
    recording: WriteRecording,
    onFailure: { onFailure: OnFailure; caller?: Caller } = { onFailure: 'report' },
    /** Where a verdict that comes after the answer is recorded (the session). */
    onLaterVerdict?: (v: ExecutionVerification) => Promise<void>,
  ): Promise<ExecutionOutcome> {
    const { clock, verify } = this.deps;
    const started = clock.now();
    const baseline = await this.rollouts.baseline(actions);
    const snapshot = await verify.snapshot(uniqueTargets(actions));
    const report = await executeApproved(this.deps, actions, approved, recording);
    const base = { dryRunPassed: report.dryRunPassed, ...(report.refused ? { refused: report.refused } : {}), actions: report.outcomes };
    if (!report.dryRunPassed) return { ...base, succeeded: false, rollouts: [], objects: [] };
    // within the answer cap (SVC_VERIFY_ANSWER_MS): a rollout still going on then is the verdict's to watch
    const rollouts = await this.rollouts.wait(actions, report.outcomes, baseline, Math.min(deadlineMs, answerWithinMs(verify.settings)));
    const writes = executedWrites(actions, report.outcomes);
    const health = writes.length
      ? await verify.verify({
          snapshot,
          writes,
          deadlineMs: deadlineMs - (clock.now() - started),
          ...onFailure,
          tool: 'operate',
          ...(onLaterVerdict ? { onLaterVerdict } : {}),
        })
      : undefined;

    const objects: ExecutionOutcome['objects'] = [];
    for (const t of uniqueTargets(actions)) objects.push({ target: t, state: await this.stateOf(t) });
    const succeeded = succeededBy(report.outcomes, rollouts, health);
    return { ...base, succeeded, rollouts, objects, ...(health ? { health } : {}) };
  }

  /** A verdict reached after the answer, on the outcome the answer recorded: it replaces the verdict so far, and decides `succeeded` again. */
  static withLaterVerdict(outcome: ExecutionOutcome, health: ExecutionVerification): ExecutionOutcome {
    return { ...outcome, health, succeeded: succeededBy(outcome.actions, outcome.rollouts, health) };
  }

  private async stateOf(t: ResourceRef): Promise<string> {
    try {
      const o = await this.deps.reader.get(t);
      return o ? summarizeObject(o) : `${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}: not found`;
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      return `${t.kind} ${t.name}: could not be read (${e.message})`;
    }
  }
}

/**
 * Every action applied, no degraded verdict, and every rollout finished; a
 * rollout the answer stopped waiting for (the verdict still pending, or found
 * healthy by it since) does not fail the execution by itself.
 */
function succeededBy(actions: ExecutionOutcome['actions'], rollouts: ExecutionOutcome['rollouts'], health: ExecutionVerification | undefined): boolean {
  if (!actions.every((o) => o.status === 'applied') || health?.verdict === 'degraded') return false;
  return health?.pending === true || health?.verdict === 'healthy' || rollouts.every((r) => r.state === 'rolled-out');
}
