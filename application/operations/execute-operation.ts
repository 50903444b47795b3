import type { ClusterAction } from '../../domain/actions/cluster-action.js';
import type { Caller } from '../../domain/auth/caller.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import { summarizeObject } from '../../domain/cluster/object-summary.js';
import { DomainError } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import { OPEN_WRITE_SCOPE } from '../../domain/actions/write-scope.js';
import { AwaitRollouts, uniqueTargets, type RolloutWaitOptions } from '../actions/await-rollouts.js';
import { executeApproved } from '../actions/execute-approved.js';
import type { WriteRecording } from '../actions/execute-actions.js';
import type { PolicySource } from '../actions/policy-source.js';
import type { PreviewChecks } from '../actions/preview-actions.js';
import type { ProposedAction } from '../actions/proposed-action.js';
import { executedWrites, type OnFailure, type VerifyExecution } from '../actions/verify-execution.js';
import type { ExecutionOutcome } from './operation-state.js';

export type { RolloutWaitOptions } from '../actions/await-rollouts.js';

/**
 * Runs an approved operation: executeApproved (the allow-lists and the
 * organisation's policies again, each
 * action pinned to the object version its preview saw, dry run of every
 * action again, then apply in order), then the shared rollout wait
 * (AwaitRollouts: each Deployment, StatefulSet and DaemonSet it changed,
 * bounded by what is left of the run, with rollback advice for one that did
 * not finish). Then, with `verify`, the deterministic verdict over the
 * settle window against a snapshot taken before the write, and on
 * `degraded` the revert (or the report) onFailure asks for. Reports each
 * touched object's state at the end.
 */
export class ExecuteOperation {
  private readonly rollouts: AwaitRollouts;

  constructor(
    private readonly reader: ClusterReader,
    private readonly writer: ClusterWriter,
    private readonly clock: Clock,
    options: RolloutWaitOptions = {},
    private readonly checks: PreviewChecks = { scope: OPEN_WRITE_SCOPE },
    /** The organisation's policies, read again at execution. */
    private readonly policies?: PolicySource,
    private readonly verify?: VerifyExecution,
  ) {
    this.rollouts = new AwaitRollouts(reader, writer, options);
  }

  /** `deadlineMs`: what is left of the run's wall-clock limit (SVC_AI_TIMEOUT_MS); `recording`: where each write is recorded. */
  async execute(
    actions: ClusterAction[],
    approved: readonly ProposedAction[],
    deadlineMs: number,
    recording?: WriteRecording,
    onFailure: { onFailure: OnFailure; caller?: Caller } = { onFailure: 'report' },
  ): Promise<ExecutionOutcome> {
    const started = this.clock.now();
    const baseline = await this.rollouts.baseline(actions);
    const snapshot = await this.verify?.snapshot(uniqueTargets(actions));
    const report = await executeApproved(
      { reader: this.reader, writer: this.writer, clock: this.clock, ...(this.policies ? { policies: this.policies } : {}) },
      this.checks,
      actions,
      approved,
      recording,
    );
    const base = { dryRunPassed: report.dryRunPassed, ...(report.refused ? { refused: report.refused } : {}), actions: report.outcomes };
    if (!report.dryRunPassed) return { ...base, succeeded: false, rollouts: [], objects: [] };
    const rollouts = await this.rollouts.wait(actions, report.outcomes, baseline, deadlineMs);
    const writes = executedWrites(actions, report.outcomes);
    const health =
      this.verify && snapshot && writes.length
        ? await this.verify.verify({ snapshot, writes, deadlineMs: deadlineMs - (this.clock.now() - started), ...onFailure })
        : undefined;

    const objects: ExecutionOutcome['objects'] = [];
    for (const t of uniqueTargets(actions)) objects.push({ target: t, state: await this.stateOf(t) });
    const succeeded = report.outcomes.every((o) => o.status === 'applied') && rollouts.every((r) => r.state === 'rolled-out') && health?.verdict !== 'degraded';
    return { ...base, succeeded, rollouts, objects, ...(health ? { health } : {}) };
  }

  private async stateOf(t: ResourceRef): Promise<string> {
    try {
      const o = await this.reader.get(t);
      return o ? summarizeObject(o) : `${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}: not found`;
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      return `${t.kind} ${t.name}: could not be read (${e.message})`;
    }
  }
}
