import { actionTarget, type ClusterAction } from '../../domain/actions/cluster-action.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import { rolloutStatus } from '../../domain/cluster/rollout-status.js';
import { DomainError } from '../../domain/errors.js';
import { diffSegments } from '../../domain/operations/object-diff.js';
import { rollbackAdvice, type RollbackAdvice } from '../../domain/operations/rollback.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { ActionOutcome } from './execute-actions.js';

export interface RolloutWaitOptions {
  /** Upper bound on all rollout waits of one execution; default 120000. The run's own deadline lowers it. */
  timeoutMs?: number;
  /** How often the workload is read while waiting; default 1000. */
  intervalMs?: number;
}

export type RolloutState = 'rolled-out' | 'failed' | 'timed-out' | 'unknown';

/** The rollout of one workload (Deployment, StatefulSet, DaemonSet) an execution changed. */
export interface RolloutReport {
  target: ResourceRef;
  state: RolloutState;
  message: string;
  waitedMs: number;
  /** With any state but `rolled-out`: how to put the previous spec back. */
  rollback?: RollbackAdvice;
}

/** The workloads of a run as they were before it, read before anything is applied (the rollback advice diffs against them). */
export type RolloutBaseline = ReadonlyMap<string, KubeObject | null>;

/** Kinds whose controller rolls a changed pod template out. */
export const ROLLED_KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);
export const refKey = (r: ResourceRef) => `${r.apiVersion}/${r.kind}/${r.namespace ?? ''}/${r.name}`;

/**
 * The rollout wait shared by operate's and remediate's executions: read the
 * workloads the actions change before applying (`baseline`), then after the
 * apply wait for the rollout of each one applied and not deleted, all waits
 * together bounded by min(`deadlineMs` left of the run, `timeoutMs`). A
 * rollout that failed or did not finish in time comes with rollback advice
 * built from the diff of the object before and after.
 */
export class AwaitRollouts {
  private readonly timeoutMs: number;
  private readonly intervalMs: number;

  constructor(
    private readonly reader: ClusterReader,
    private readonly writer: ClusterWriter,
    options: RolloutWaitOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.intervalMs = options.intervalMs ?? 1000;
  }

  async baseline(actions: readonly ClusterAction[]): Promise<RolloutBaseline> {
    const before = new Map<string, KubeObject | null>();
    for (const t of uniqueTargets(actions)) if (ROLLED_KINDS.has(t.kind)) before.set(refKey(t), await this.reader.get(t));
    return before;
  }

  /** `outcomes`: executeActions' outcome per action, in the same order as `actions`. */
  async wait(actions: readonly ClusterAction[], outcomes: readonly ActionOutcome[], baseline: RolloutBaseline, deadlineMs: number): Promise<RolloutReport[]> {
    const deleted = new Set(actions.filter((a) => a.type === 'delete').map((a) => refKey(actionTarget(a))));
    const applied = new Set(actions.filter((_, i) => outcomes[i]?.status === 'applied').map((a) => refKey(actionTarget(a))));
    let budget = Math.max(0, Math.min(this.timeoutMs, deadlineMs));
    const rollouts: RolloutReport[] = [];
    for (const t of uniqueTargets(actions)) {
      if (!ROLLED_KINDS.has(t.kind) || deleted.has(refKey(t)) || !applied.has(refKey(t))) continue;
      const r = await this.waitFor(t, budget, baseline.get(refKey(t)) ?? null);
      budget = Math.max(0, budget - r.waitedMs);
      rollouts.push(r);
    }
    return rollouts;
  }

  private async waitFor(target: ResourceRef, budgetMs: number, before: KubeObject | null): Promise<RolloutReport> {
    try {
      // at least one read, also with no time left: the rollout may already be done
      const timeoutMs = Math.max(1, budgetMs);
      const r = await this.writer.waitFor(target, { type: 'rolloutFinished' }, { timeoutMs, intervalMs: Math.max(10, Math.min(this.intervalMs, timeoutMs)) });
      if (!r.object) return notRolledOut(target, 'unknown', 'the object is gone', r.elapsedMs, before, undefined);
      const status = rolloutStatus(r.object);
      if (r.met && status.done) return { target, state: 'rolled-out', message: status.message, waitedMs: r.elapsedMs };
      if (status.failed) return notRolledOut(target, 'failed', status.message, r.elapsedMs, before, r.object);
      return notRolledOut(target, 'timed-out', `not rolled out within ${Math.round(budgetMs / 1000)} s: ${status.message}`, r.elapsedMs, before, r.object);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      return notRolledOut(target, 'unknown', `could not read the rollout: ${e.message}`, 0, before, undefined);
    }
  }
}

function notRolledOut(
  target: ResourceRef,
  state: RolloutState,
  message: string,
  waitedMs: number,
  before: KubeObject | null,
  after?: KubeObject,
): RolloutReport {
  const advice = before && after ? rollbackAdvice(target, before, diffSegments(before, after)) : undefined;
  return { target, state, message, waitedMs, ...(advice ? { rollback: advice } : {}) };
}

export function uniqueTargets(actions: readonly ClusterAction[]): ResourceRef[] {
  return uniqueRefs(actions.map(actionTarget));
}

/** Each object once (by refKey), in the order first named. */
export function uniqueRefs(refs: readonly ResourceRef[]): ResourceRef[] {
  const seen = new Map<string, ResourceRef>();
  for (const r of refs) if (!seen.has(refKey(r))) seen.set(refKey(r), r);
  return [...seen.values()];
}

/** One line per rollout, for a person or a model: where it stands and, when it did not finish, how to roll back. */
export function rolloutLines(rollouts: readonly RolloutReport[]): string {
  return rollouts
    .map((r) => {
      const where = `${r.target.kind} ${r.target.namespace ? `${r.target.namespace}/` : ''}${r.target.name}`;
      return `${where}: ${r.state} (${r.message})${r.rollback ? `; to roll back: ${r.rollback.kubectlUndo}` : ''}`;
    })
    .join('\n');
}
