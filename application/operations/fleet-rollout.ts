import { requireRole } from '../../domain/auth/tool-access.js';
import type { Caller } from '../../domain/auth/caller.js';
import type { ApprovalPolicy } from '../../domain/auth/session-owner.js';
import { ValidationError } from '../../domain/errors.js';
import { callerInCluster, clusterRefusal, selectClusters, type ClusterProfile } from '../../domain/fleet/cluster-profile.js';
import { RISK_LEVELS, type RiskLevel } from '../../domain/actions/cluster-action.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import { planDigestOf, type Approval } from '../../domain/sessions/approval-session.js';
import type { Session } from '../../domain/sessions/session.js';
import type { OperateOutput } from '../../domain/tools/outputs/operate-output.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import { runOnce } from '../actions/run-once.js';
import { isRolloutId } from '../cluster/cluster-fleet.js';
import { withinCluster } from '../cluster/current-cluster.js';
import { ownedBy } from '../sessions/session-access.js';
import { dispatchSessionCall, parseSessionCall, type ApprovalSessionTool, type SessionCall, type SessionGrammar } from '../sessions/session-dispatch.js';
import type { ToolContext, ToolHandler } from '../tool-handler.js';
import { rolloutView, type Rollout, type RolloutAnswer, type RolloutState } from './rollout-view.js';

type Input = ToolInput<'operate'>;
type ClusterStep = Rollout['waves'][number]['clusters'][number];

/** What the rollout needs of the ledger's revert: undo one entry as the caller. */
export interface RolloutRevert {
  execute(input: { id: string }, caller: Caller): Promise<{ revert: { id: string } }>;
}

/** What a rollout keeps its record in: the sessions' store (shared by the replicas on Redis), and the approval rules of sessions. */
export interface RolloutDeps {
  sessions: SessionStore;
  clock: Clock;
  /** The second-approver rule (SVC_REQUIRE_SECOND_APPROVER); absent: none. */
  approval?: ApprovalPolicy;
}

const START = 'Start a new rollout with operate, an intent and clusterSelector.';

/** How a call continuing a rollout reads: executeChoice (and planDigest) or nothing; a rollout is not refined. */
const ROLLOUT_GRAMMAR: SessionGrammar = {
  tool: 'operate',
  startField: 'intent',
  noun: 'rollout',
  refines: false,
  startOnly: ['intent', 'evidence', 'refinedIntent', 'waves', 'waveOrder', 'delivery', 'onFailure'],
  startOnlyMessage: (fields) =>
    `${fields.join(' and ')} ${fields.length > 1 ? 'do' : 'does'} not go with a rollout's sessionId (it takes executeChoice and planDigest only; each cluster verifies with onFailure revert): ${START}`,
  automaticMode: false,
};

/**
 * operate across a fleet (SVC_CLUSTERS): with `clusterSelector`, the change
 * is planned in every matching cluster (each its own operate session,
 * investigated, dry-run and judged by the guard in that cluster) and answered
 * as one rollout whose planDigest covers every cluster's plan digest. The
 * rollout is a session of its own (`rol_`, kind `rollout`) in the sessions'
 * store, so any replica sharing it may look at or execute it, and it expires
 * with SVC_SESSION_TTL; looking, stopping and approving follow the approval
 * session's rules (its starter or an admin; the second approver where the
 * rule asks for one), and it executes at most once. On approval with that
 * digest it executes wave by wave (`waves`, `waveOrder`, else one cluster a
 * wave in SVC_CLUSTERS order): each cluster's execution verifies with
 * onFailure revert; the first degraded (or failed) cluster stops the
 * rollout, the rest of that wave is reverted through the ledger, later waves
 * are not touched. Every other call goes to operate unchanged.
 */
export class FleetOperate implements ToolHandler<Input> {
  constructor(
    private readonly operate: ToolHandler<Input>,
    private readonly profiles: readonly ClusterProfile[],
    private readonly revert: RolloutRevert,
    private readonly deps: RolloutDeps,
  ) {}

  execute(input: Input, context: ToolContext): Promise<unknown> {
    if (input.clusterSelector !== undefined) return this.plan(input, context);
    if (isRolloutId(input.sessionId)) return this.continue(input, context);
    if (input.waves !== undefined || input.waveOrder !== undefined) throw new ValidationError('waves and waveOrder go with clusterSelector');
    return this.operate.execute(input, context);
  }

  private async plan(input: Input, context: ToolContext): Promise<RolloutAnswer> {
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
    const risks: RiskLevel[] = [];
    const namespaces: (string | undefined)[] = [];
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
        for (const a of view.proposal.actions) {
          risks.push(a.risk);
          namespaces.push(a.target.namespace);
        }
        steps.push({ cluster: p.name, sessionId: view.sessionId, planDigest: view.planDigest, status: view.status });
      }
      planned.push(steps);
    }
    const planDigest = planDigestOf({ rollout: planned.map((w) => w.map((s) => ({ cluster: s.cluster, sessionId: s.sessionId, planDigest: s.planDigest }))) });
    const state: RolloutState = {
      ...ownedBy(context),
      intent: input.intent,
      planDigest,
      proposal: {
        summary: `${input.intent} in ${matching.length} cluster${matching.length > 1 ? 's' : ''} (${planned.map((w) => w.map((s) => s.cluster).join(' + ')).join(', then ')})`,
        risk: RISK_LEVELS[totals.risk] as RiskLevel,
        executable: totals.executable,
        actions: [],
        investigation: { modelCalls: totals.modelCalls, functionCalls: totals.functionCalls, stoppedBy: 'rollout' },
        plannedAt: new Date(this.deps.clock.now()).toISOString(),
      },
      rollout: { clusterSelector: { ...selector }, waves: planned.map((clusters, i) => ({ wave: i + 1, status: 'pending', clusters })) },
      risks,
      namespaces,
    };
    return rolloutView(await this.deps.sessions.create<RolloutState>('rollout', state));
  }

  /** Look at, stop or execute a rollout: the approval session's dispatcher and rules, with the rollout's own I/O. */
  private async continue(input: Input, context: ToolContext): Promise<RolloutAnswer> {
    const call = parseSessionCall(input, ROLLOUT_GRAMMAR);
    const view = await dispatchSessionCall(this.sessionTool(), call, context);
    // the rollout is stopped (its starter or an admin, while proposed): so is every cluster's session, nothing applied anywhere
    if (call.step === 'stop')
      for (const s of view.rollout.waves.flatMap((w) => w.clusters)) {
        const p = this.profileOf(s.cluster);
        await withinCluster(p.name, () => this.operate.execute({ sessionId: s.sessionId, executeChoice: 2 }, this.contextIn(p, context)));
      }
    return view;
  }

  private sessionTool(): ApprovalSessionTool<Input, RolloutState, RolloutAnswer> {
    return {
      kind: 'rollout',
      start: START,
      sessions: this.deps.sessions,
      clock: this.deps.clock,
      approval: this.deps.approval,
      requireFor: () => undefined,
      planOf: (state) => ({ planDigest: state.planDigest, risks: state.risks, namespaces: state.namespaces }),
      view: rolloutView,
      begin: (input, context) => this.plan(input, context!),
      execute: (session, approval, call, context) => this.executeRollout(session, approval, call, context!),
    };
  }

  private async executeRollout(
    session: Session<RolloutState>,
    approval: Approval,
    call: Extract<SessionCall<Input>, { step: 'execute' }>,
    context: ToolContext,
  ): Promise<RolloutAnswer> {
    const { state } = session;
    if (call.planDigest === undefined)
      throw new ValidationError(`executing a rollout needs the planDigest it answered (${state.planDigest}): one approval covers every cluster's plan`);
    if (!state.proposal.executable) throw new ValidationError(`rollout ${session.id} cannot be executed: a cluster's plan is not executable. ${START}`);
    const steps = state.rollout.waves.flatMap((w) => w.clusters);
    // every cluster's rules and roles, before any write anywhere
    for (const s of steps) {
      const p = this.profileOf(s.cluster);
      const refusal = clusterRefusal(p, 'operate', { executeChoice: 1 });
      if (refusal) throw refusal;
      requireRole(callerInCluster(p, context.caller), 'operator', `operate in cluster ${p.name}`);
    }
    const done = await runOnce(this.deps.sessions, 'rollout', session, this.deps.clock, () => this.runWaves(state.rollout, context), START, approval);
    return rolloutView(done.session);
  }

  private async runWaves(rollout: Rollout, context: ToolContext): Promise<Rollout> {
    const waves = rollout.waves.map((w) => ({ ...w, clusters: w.clusters.map((c) => ({ ...c })) }));
    let stoppedAt: Rollout['stoppedAt'];
    for (const wave of waves) {
      if (stoppedAt) {
        wave.status = 'not-run';
        continue;
      }
      const written: { step: ClusterStep; ledgerIds: string[] }[] = [];
      for (const step of wave.clusters) {
        const p = this.profileOf(step.cluster);
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

  private profileOf(name: string): ClusterProfile {
    const profile = this.profiles.find((p) => p.name === name);
    // a cluster the rollout was planned in that svc no longer serves (SVC_CLUSTERS changed since): refused, never run elsewhere
    if (!profile) throw new ValidationError(`the rollout names cluster ${name}, which svc no longer serves. ${START}`);
    return profile;
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
