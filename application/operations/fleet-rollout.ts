import { requireRole } from '../../domain/auth/tool-access.js';
import type { Caller } from '../../domain/auth/caller.js';
import { ConflictError, ForbiddenError, NotFoundError, ERROR_CODES, ValidationError } from '../../domain/errors.js';
import { callerInCluster, clusterRefusal, selectClusters, type ClusterProfile } from '../../domain/fleet/cluster-profile.js';
import { RISK_LEVELS, type RiskLevel } from '../../domain/actions/cluster-action.js';
import type { Clock } from '../../domain/ports/clock.js';
import { planDigestOf } from '../../domain/sessions/approval-session.js';
import type { OperateOutput } from '../../domain/tools/outputs/operate-output.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import { isRolloutId } from '../cluster/cluster-fleet.js';
import { withinCluster } from '../cluster/current-cluster.js';
import type { ToolContext, ToolHandler } from '../tool-handler.js';

type Input = ToolInput<'operate'>;
type Rollout = NonNullable<OperateOutput['rollout']>;
type ClusterStep = Rollout['waves'][number]['clusters'][number];

/** What the rollout needs of the ledger's revert: undo one entry as the caller. */
export interface RolloutRevert {
  execute(input: { id: string }, caller: Caller): Promise<{ revert: { id: string } }>;
}

interface RolloutRecord {
  id: string;
  ownerId: string;
  intent: string;
  createdAt: number;
  answer: OperateOutput & { rollout: Rollout };
}

/** Rollouts kept (this replica's, in memory): the oldest goes first; each lives as long as the sessions it binds. */
const MAX_ROLLOUTS = 200;

/**
 * operate across a fleet (SVC_CLUSTERS): with `clusterSelector`, the change
 * is planned in every matching cluster (each its own operate session,
 * investigated, dry-run and judged by the guard in that cluster) and answered
 * as one rollout whose planDigest covers every cluster's plan digest. On
 * approval with that digest it executes wave by wave (`waves`, `waveOrder`,
 * else one cluster a wave in SVC_CLUSTERS order): each cluster's execution
 * verifies with onFailure revert; the first degraded (or failed) cluster
 * stops the rollout, the rest of that wave is reverted through the ledger,
 * later waves are not touched. Every other call goes to operate unchanged.
 */
export class FleetOperate implements ToolHandler<Input> {
  private readonly rollouts = new Map<string, RolloutRecord>();

  constructor(
    private readonly operate: ToolHandler<Input>,
    private readonly profiles: readonly ClusterProfile[],
    private readonly revert: RolloutRevert,
    private readonly clock: Clock,
    private readonly randomHex32: () => string,
    private readonly ttlMs: number,
  ) {}

  execute(input: Input, context: ToolContext): Promise<unknown> {
    if (input.clusterSelector !== undefined) return this.plan(input, context);
    if (isRolloutId(input.sessionId)) return this.continue(input, context);
    if (input.waves !== undefined || input.waveOrder !== undefined) throw new ValidationError('waves and waveOrder go with clusterSelector');
    return this.operate.execute(input, context);
  }

  private async plan(input: Input, context: ToolContext): Promise<OperateOutput> {
    if (input.sessionId !== undefined || input.executeChoice !== undefined || input.refinedIntent !== undefined)
      throw new ValidationError('clusterSelector starts a rollout: send it with an intent; continue the rollout with the sessionId it answers');
    if (input.intent === undefined) throw new ValidationError('intent is required to start a rollout');
    const selector = input.clusterSelector ?? {};
    const matching = selectClusters(this.profiles, selector);
    const waves = arrangeWaves(matching, input.waves, input.waveOrder);
    // every cluster's own role is checked before any is planned
    for (const p of matching) requireRole(callerInCluster(p, context.caller), 'operator', `operate in cluster ${p.name}`);
    const planned: ClusterStep[][] = [];
    const totals = { modelCalls: 0, functionCalls: 0, risk: 0, executable: true };
    for (const wave of waves) {
      const steps: ClusterStep[] = [];
      for (const p of wave) {
        const view = (await withinCluster(p.name, () =>
          this.operate.execute({ intent: input.intent, ...(input.evidence ? { evidence: input.evidence } : {}) }, this.contextIn(p, context)),
        )) as OperateOutput;
        totals.modelCalls += view.proposal.investigation.modelCalls;
        totals.functionCalls += view.proposal.investigation.functionCalls;
        totals.risk = Math.max(totals.risk, RISK_LEVELS.indexOf(view.proposal.risk));
        totals.executable &&= view.proposal.executable;
        steps.push({ cluster: p.name, sessionId: view.sessionId, planDigest: view.planDigest, status: view.status });
      }
      planned.push(steps);
    }
    const id = `rol_${this.randomHex32()}`;
    const planDigest = planDigestOf({ rollout: planned.map((w) => w.map((s) => ({ cluster: s.cluster, sessionId: s.sessionId, planDigest: s.planDigest }))) });
    const rollout: Rollout = { clusterSelector: { ...selector }, waves: planned.map((clusters, i) => ({ wave: i + 1, status: 'pending', clusters })) };
    const answer: RolloutRecord['answer'] = {
      sessionId: id,
      status: totals.executable ? 'awaiting_approval' : 'needs_refinement',
      intent: input.intent,
      refinements: [],
      planDigest,
      proposal: {
        summary: `${input.intent} in ${matching.length} cluster${matching.length > 1 ? 's' : ''} (${planned.map((w) => w.map((s) => s.cluster).join(' + ')).join(', then ')})`,
        risk: RISK_LEVELS[totals.risk] as RiskLevel,
        executable: totals.executable,
        actions: [],
        investigation: { modelCalls: totals.modelCalls, functionCalls: totals.functionCalls, stoppedBy: 'rollout' },
        plannedAt: new Date(this.clock.now()).toISOString(),
      },
      nextStep: totals.executable
        ? `Review each cluster's session, then execute the whole rollout: {"sessionId":"${id}","executeChoice":1,"planDigest":"${planDigest}"}`
        : `A cluster's plan cannot be executed (see its session); start the rollout again with a corrected intent`,
      rollout,
    };
    this.keep({ id, ownerId: context.caller.id, intent: input.intent, createdAt: this.clock.now(), answer });
    return answer;
  }

  private async continue(input: Input, context: ToolContext): Promise<OperateOutput> {
    const record = this.find(input.sessionId!);
    if (record.ownerId !== context.caller.id && !context.caller.roles.includes('admin'))
      throw new ForbiddenError(`rollout ${record.id} was started by someone else; only they or an admin may act on it`);
    if (input.executeChoice === undefined) return record.answer;
    if (record.answer.status !== 'awaiting_approval')
      throw new ValidationError(`rollout ${record.id} is ${record.answer.status}: it cannot be ${input.executeChoice === 1 ? 'executed' : 'stopped'}`);
    const steps = record.answer.rollout.waves.flatMap((w) => w.clusters);
    const profileOf = (name: string) => this.profiles.find((p) => p.name === name)!;
    if (input.executeChoice === 2) {
      for (const s of steps)
        await withinCluster(s.cluster, () => this.operate.execute({ sessionId: s.sessionId, executeChoice: 2 }, this.contextIn(profileOf(s.cluster), context)));
      record.answer = {
        ...record.answer,
        status: 'stopped',
        stoppedAt: new Date(this.clock.now()).toISOString(),
        nextStep: 'Nothing was applied in any cluster.',
      };
      return record.answer;
    }
    if (input.planDigest === undefined)
      throw new ValidationError(`executing a rollout needs the planDigest it answered (${record.answer.planDigest}): one approval covers every cluster's plan`);
    if (input.planDigest !== record.answer.planDigest)
      throw new ConflictError(`planDigest ${input.planDigest} is not rollout ${record.id}'s (${record.answer.planDigest})`);
    // every cluster's rules and roles, before any write anywhere
    for (const s of steps) {
      const p = profileOf(s.cluster);
      const refusal = clusterRefusal(p, 'operate', { executeChoice: 1 });
      if (refusal) throw refusal;
      requireRole(callerInCluster(p, context.caller), 'operator', `operate in cluster ${p.name}`);
    }
    record.answer = { ...record.answer, status: 'executing' };
    const rollout = await this.runWaves(record.answer.rollout, context, profileOf);
    const stopped = rollout.stoppedAt;
    record.answer = {
      ...record.answer,
      status: stopped ? 'execution_failed' : 'executed',
      rollout,
      nextStep: stopped
        ? `Stopped at wave ${stopped.wave} (cluster ${stopped.cluster}): ${stopped.reason}. That wave was reverted; later waves were not touched.`
        : `Executed in every cluster, wave by wave, each verified healthy.`,
    };
    return record.answer;
  }

  private async runWaves(rollout: Rollout, context: ToolContext, profileOf: (name: string) => ClusterProfile): Promise<Rollout> {
    const waves = rollout.waves.map((w) => ({ ...w, clusters: w.clusters.map((c) => ({ ...c })) }));
    let stoppedAt: Rollout['stoppedAt'];
    for (const wave of waves) {
      if (stoppedAt) {
        wave.status = 'not-run';
        continue;
      }
      const written: { step: ClusterStep; ledgerIds: string[] }[] = [];
      for (const step of wave.clusters) {
        const p = profileOf(step.cluster);
        try {
          const view = (await withinCluster(p.name, () =>
            this.operate.execute({ sessionId: step.sessionId, executeChoice: 1, planDigest: step.planDigest, onFailure: 'revert' }, this.contextIn(p, context)),
          )) as OperateOutput;
          const outcome = view.execution?.outcome;
          const health = outcome?.health;
          step.status = view.status;
          if (health) step.verdict = health.verdict;
          if (health?.reverted?.length) step.reverted = health.reverted.map((r) => r.revertId);
          const ledgerIds = (outcome?.actions ?? []).flatMap((a) => (a.ledgerId ? [a.ledgerId] : []));
          if (view.status === 'executed' && health?.verdict !== 'degraded' && !health?.pending) {
            written.push({ step, ledgerIds });
            continue;
          }
          const reason = health?.pending
            ? 'its verdict was not final when the answer was due (run the rollout with Prefer: respond-async to wait the whole window)'
            : health?.verdict === 'degraded'
              ? `the verdict after the write was degraded (${health.evidence.slice(0, 3).join('; ')})`
              : `its execution ended ${view.status}`;
          if (health?.pending || (!health?.reverted?.length && ledgerIds.length)) written.push({ step, ledgerIds });
          stoppedAt = { wave: wave.wave, cluster: p.name, reason };
        } catch (e) {
          step.status = 'execution_failed';
          step.error = (e as Error).message;
          stoppedAt = { wave: wave.wave, cluster: p.name, reason: `its execution failed: ${(e as Error).message}` };
        }
        break;
      }
      if (!stoppedAt) {
        wave.status = 'executed';
        continue;
      }
      // the whole wave goes back: every write its other clusters kept, newest first, through the ledger (each to its own cluster)
      for (const { step, ledgerIds } of written.reverse()) {
        const reverts: string[] = [...(step.reverted ?? [])];
        for (const id of [...ledgerIds].reverse()) {
          try {
            reverts.push((await this.revert.execute({ id }, context.caller)).revert.id);
          } catch (e) {
            step.error = `revert of ${id} failed: ${(e as Error).message}`;
          }
        }
        if (reverts.length) step.reverted = reverts;
      }
      for (const step of wave.clusters) if (step.status === 'awaiting_approval') step.status = 'not-run';
      wave.status = wave.clusters.some((c) => c.verdict === 'degraded') ? 'degraded' : 'reverted';
    }
    return { ...rollout, waves, ...(stoppedAt ? { stoppedAt } : {}) };
  }

  private contextIn(p: ClusterProfile, context: ToolContext): ToolContext {
    return { ...context, caller: callerInCluster(p, context.caller) };
  }

  private keep(record: RolloutRecord): void {
    this.rollouts.set(record.id, record);
    while (this.rollouts.size > MAX_ROLLOUTS) this.rollouts.delete(this.rollouts.keys().next().value as string);
  }

  private find(id: string): RolloutRecord {
    const record = this.rollouts.get(id);
    if (!record || this.clock.now() - record.createdAt > this.ttlMs) {
      this.rollouts.delete(id);
      throw new NotFoundError(
        ERROR_CODES.NOT_FOUND,
        `rollout ${id} is unknown or expired (a rollout is kept by the replica that planned it): start it again with clusterSelector`,
      );
    }
    return record;
  }
}

/**
 * The matching clusters in waves: `waves` as given (every matching cluster
 * exactly once), else a wave per label=value of `waveOrder` (every matching
 * cluster in one), else one cluster a wave in SVC_CLUSTERS order.
 */
export function arrangeWaves(matching: readonly ClusterProfile[], waves?: readonly (readonly string[])[], waveOrder?: string): ClusterProfile[][] {
  const byName = new Map(matching.map((p) => [p.name, p]));
  if (waves !== undefined && waveOrder !== undefined) throw new ValidationError('Send either waves or waveOrder, not both');
  if (waves !== undefined) {
    const seen = new Set<string>();
    const out = waves.map((w) =>
      w.map((name) => {
        const p = byName.get(name);
        if (!p) throw new ValidationError(`waves names ${name}, which is not a cluster clusterSelector matches (${[...byName.keys()].join(', ')})`);
        if (seen.has(name)) throw new ValidationError(`waves names ${name} twice`);
        seen.add(name);
        return p;
      }),
    );
    const left = matching.filter((p) => !seen.has(p.name));
    if (left.length) throw new ValidationError(`waves leaves out ${left.map((p) => p.name).join(', ')}: every matching cluster goes in one wave`);
    return out;
  }
  if (waveOrder !== undefined) {
    const order = waveOrder.split(',').map((pair) => pair.split('=') as [string, string]);
    const out = order.map(([k, v]) =>
      matching.filter((p) => p.labels[k] === v && order.findIndex(([k2, v2]) => p.labels[k2] === v2) === order.findIndex((o) => o[0] === k && o[1] === v)),
    );
    const placed = new Set(out.flat().map((p) => p.name));
    const left = matching.filter((p) => !placed.has(p.name));
    if (left.length)
      throw new ValidationError(
        `waveOrder ${waveOrder} places no wave for ${left.map((p) => p.name).join(', ')}: every matching cluster must carry one of its labels`,
      );
    return out.filter((w) => w.length > 0);
  }
  return matching.map((p) => [p]);
}
