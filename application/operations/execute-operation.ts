import { actionTarget, type ClusterAction } from '../../domain/actions/cluster-action.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import { rolloutStatus } from '../../domain/cluster/rollout-status.js';
import { summarizeObject } from '../../domain/cluster/object-summary.js';
import { DomainError } from '../../domain/errors.js';
import { diffSegments } from '../../domain/operations/object-diff.js';
import { rollbackAdvice } from '../../domain/operations/rollback.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import { executeActions } from '../actions/execute-actions.js';
import type { ExecutionOutcome, RolloutReport } from './operation-state.js';

export interface RolloutWaitOptions {
  /** Upper bound on all rollout waits of one execution; default 120000. The run's own deadline lowers it. */
  timeoutMs?: number;
  /** How often the workload is read while waiting; default 1000. */
  intervalMs?: number;
}

const ROLLED = new Set(['Deployment', 'StatefulSet']);
const key = (r: ResourceRef) => `${r.apiVersion}/${r.kind}/${r.namespace ?? ''}/${r.name}`;

/**
 * Runs an approved operation: executeActions (dry run of every action again,
 * then apply in order), then waits for the rollout of each Deployment and
 * StatefulSet it changed, all waits together bounded by
 * min(`deadlineMs` left of the run, `timeoutMs`). A rollout that failed or did
 * not finish in time comes with rollback advice built from the diff of the
 * object before and after. Reports each touched object's state at the end.
 */
export class ExecuteOperation {
  private readonly timeoutMs: number;
  private readonly intervalMs: number;

  constructor(
    private readonly reader: ClusterReader,
    private readonly writer: ClusterWriter,
    private readonly clock: Clock,
    options: RolloutWaitOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.intervalMs = options.intervalMs ?? 1000;
  }

  /** `deadlineMs`: what is left of the run's wall-clock limit (SVC_AI_TIMEOUT_MS). */
  async execute(actions: ClusterAction[], deadlineMs: number): Promise<ExecutionOutcome> {
    const targets = unique(actions.map(actionTarget));
    const before = new Map<string, KubeObject | null>();
    for (const t of targets.filter((t) => ROLLED.has(t.kind))) before.set(key(t), await this.reader.get(t));

    const report = await executeActions(this.writer, actions, this.clock);
    const base = { dryRunPassed: report.dryRunPassed, ...(report.refused ? { refused: report.refused } : {}), actions: report.outcomes };
    if (!report.dryRunPassed) return { ...base, succeeded: false, rollouts: [], objects: [] };

    const deleted = new Set(actions.filter((a) => a.type === 'delete').map((a) => key(actionTarget(a))));
    const applied = new Set(actions.filter((_, i) => report.outcomes[i].status === 'applied').map((a) => key(actionTarget(a))));
    let budget = Math.max(0, Math.min(this.timeoutMs, deadlineMs));
    const rollouts: RolloutReport[] = [];
    for (const t of targets) {
      if (!ROLLED.has(t.kind) || deleted.has(key(t)) || !applied.has(key(t))) continue;
      const r = await this.waitForRollout(t, budget, before.get(key(t)) ?? null);
      budget = Math.max(0, budget - r.waitedMs);
      rollouts.push(r);
    }

    const objects: ExecutionOutcome['objects'] = [];
    for (const t of targets) objects.push({ target: t, state: await this.stateOf(t) });
    const succeeded = report.outcomes.every((o) => o.status === 'applied') && rollouts.every((r) => r.state === 'rolled-out');
    return { ...base, succeeded, rollouts, objects };
  }

  private async waitForRollout(target: ResourceRef, budgetMs: number, before: KubeObject | null): Promise<RolloutReport> {
    try {
      // at least one read, also with no time left: the rollout may already be done
      const timeoutMs = Math.max(1, budgetMs);
      const r = await this.writer.waitFor(target, { type: 'rolloutFinished' }, { timeoutMs, intervalMs: Math.max(10, Math.min(this.intervalMs, timeoutMs)) });
      if (!r.object) return this.notRolledOut(target, 'unknown', 'the object is gone', r.elapsedMs, before, undefined);
      const status = rolloutStatus(r.object);
      if (r.met && status.done) return { target, state: 'rolled-out', message: status.message, waitedMs: r.elapsedMs };
      if (status.failed) return this.notRolledOut(target, 'failed', status.message, r.elapsedMs, before, r.object);
      return this.notRolledOut(target, 'timed-out', `not rolled out within ${Math.round(budgetMs / 1000)} s: ${status.message}`, r.elapsedMs, before, r.object);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      return this.notRolledOut(target, 'unknown', `could not read the rollout: ${e.message}`, 0, before, undefined);
    }
  }

  private notRolledOut(
    target: ResourceRef,
    state: RolloutReport['state'],
    message: string,
    waitedMs: number,
    before: KubeObject | null,
    after: KubeObject | undefined,
  ): RolloutReport {
    const advice = before && after ? rollbackAdvice(target, before, diffSegments(before, after)) : undefined;
    return { target, state, message, waitedMs, ...(advice ? { rollback: advice } : {}) };
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

function unique(refs: ResourceRef[]): ResourceRef[] {
  const seen = new Map<string, ResourceRef>();
  for (const r of refs) if (!seen.has(key(r))) seen.set(key(r), r);
  return [...seen.values()];
}
