import { OPEN_WRITE_SCOPE, type WriteScope } from '../../domain/actions/write-scope.js';
import type { ClusterEvent, DryRunResult, KubeObject } from '../../domain/cluster/kube-types.js';
import { applyOrder } from '../../domain/deployment/manifest-checks.js';
import { readiness } from '../../domain/deployment/readiness.js';
import { assertCallAllowed, nextSteps } from '../../domain/deployment/workflow.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import type { ClusterDeployOutput } from '../../domain/tools/outputs/deployment-outputs.js';
import type { ToolContext, ToolHandler } from '../tool-handler.js';
import { reportProgress, throwIfCancelled } from '../runs/run-scope.js';
import { DomainError } from '../../domain/errors.js';
import { writeContextFor, type ChangeRecorder } from '../ledger/change-recorder.js';
import { ApplyFailure, applyAll, assertDeployable, dryRunAll, refOf, type AppliedObject, type ObjectOutcome } from './deploy-checks.js';
import { cleanupOffer, type CleanupOffer } from './deploy-cleanup.js';
import type { SolutionSessions } from './solution-sessions.js';
import { NO_POLICIES, type PolicySource } from '../actions/policy-source.js';

export const DEFAULT_DEPLOY_TIMEOUT_S = 30;
/** An outcome svc refused itself (the organisation's policies), not the API server. */
const SVC_REFUSAL = /^(PolicyViolation|PoliciesUnreadable): /;
const MAX_EVENTS = 10;

export interface ObjectStatus {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  ready: boolean;
  reason: string;
}

/**
 * deployManifests: refuses objects of a kind the solution does not name or
 * outside the write allow-lists (400, before any request); dry-runs every
 * object before applying any and checks what the dry run returns against
 * every stored policy (a refusal or a broken policy applies nothing:
 * `dry_run_refused`); then server-side applies them in order (field manager
 * `svc`; applying the same objects again changes nothing, so a re-deploy is
 * idempotent). A failure stops the rest (`apply_failed`) and the answer
 * offers the commands that delete what this run created. Each object's
 * outcome and risk is answered and recorded on the session. Then polls until
 * every object is ready or the timeout ends; on timeout the pending objects
 * are named with why, from their events and their pods' events.
 */
export class DeployManifests implements ToolHandler<ToolInput<'deployManifests'>> {
  constructor(
    private readonly reader: ClusterReader,
    private readonly writer: ClusterWriter,
    private readonly sessions: SolutionSessions,
    private readonly clock: Clock & Timers,
    private readonly pollIntervalMs = 1000,
    private readonly scope: WriteScope = OPEN_WRITE_SCOPE,
    /** Records each applied object in the change ledger. */
    private readonly recorder?: ChangeRecorder,
    /** The organisation's policies: every object's dry-run result is checked against every stored one. */
    private readonly policies: PolicySource = NO_POLICIES,
  ) {}

  async execute({ solutionId, timeout = DEFAULT_DEPLOY_TIMEOUT_S }: ToolInput<'deployManifests'>, context?: ToolContext): Promise<ClusterDeployOutput> {
    const session = await this.sessions.load(solutionId);
    assertCallAllowed('deployManifests', solutionId, session.state);
    this.sessions.approveDeploy(
      session,
      session.state.manifests!.objects.map((o) => o.metadata.namespace),
      context,
    );
    const objects = applyOrder(session.state.manifests!.objects);
    assertDeployable(objects, session.state.solution, this.scope);
    const ledgerIds: string[] = [];
    const started = this.clock.now();
    const checked = await dryRunAll(this.reader, this.writer, objects, this.scope, await this.policies.stored());
    if (checked.refused)
      return this.stopped(
        solutionId,
        'dry_run_refused',
        checked.outcomes.map((o) => (o.outcome === 'refused' ? o : { ...o, outcome: 'not-run' as const })),
        undefined,
        started,
      );
    const run = { solutionId, intent: session.state.intent, context, ledgerIds };
    const { outcomes, applied } = await applyAll((o, i, warnings) => this.applyOne(o, checked.verdicts[i], run, warnings), objects, checked.outcomes);
    if (outcomes.some((o) => o.outcome === 'failed'))
      return this.stopped(
        solutionId,
        'apply_failed',
        outcomes,
        cleanupOffer(solutionId, outcomes, this.recorder !== undefined && context !== undefined),
        started,
        ledgerIds,
      );
    const deadline = started + timeout * 1000;
    let statuses = await this.statuses(applied);
    while (statuses.some((s) => !s.ready) && this.clock.now() < deadline) {
      reportProgress('waiting', { ready: statuses.filter((s) => s.ready).length, total: statuses.length });
      await this.sleep(Math.min(this.pollIntervalMs, deadline - this.clock.now()));
      throwIfCancelled();
      statuses = await this.statuses(applied);
    }
    const ready = statuses.every((s) => s.ready);
    const pending = ready ? [] : await Promise.all(statuses.filter((s) => !s.ready).map(async (s) => ({ ...s, events: await this.eventsAbout(s) })));
    // Reloaded: the wait may have been long, and the revision check must see what is stored now.
    const fresh = await this.sessions.load(solutionId);
    const saved = await this.sessions.save(fresh, {
      ...fresh.state,
      deployment: { deployedAt: new Date(started).toISOString(), ready, deployments: (fresh.state.deployment?.deployments ?? 0) + 1, outcomes },
    });
    return {
      solutionId,
      status: ready ? ('ready' as const) : ('timeout' as const),
      waitedSeconds: Math.round((this.clock.now() - started) / 100) / 10,
      applied: outcomes,
      objects: statuses,
      ...(ledgerIds.length ? { ledgerIds } : {}),
      ...(ready ? {} : { pending, message: `Not ready after ${timeout} s: ${pending.map((p) => `${p.kind} ${p.name} (${p.reason})`).join(', ')}` }),
      nextSteps: nextSteps(solutionId, saved.state),
    };
  }

  /** A deploy that stopped before the wait: recorded on the session (not ready) and answered with each object's outcome. */
  private async stopped(
    solutionId: string,
    status: 'dry_run_refused' | 'apply_failed',
    outcomes: ObjectOutcome[],
    cleanup: CleanupOffer | undefined,
    started: number,
    ledgerIds: string[] = [],
  ): Promise<ClusterDeployOutput> {
    const fresh = await this.sessions.load(solutionId);
    const saved = await this.sessions.save(fresh, {
      ...fresh.state,
      deployment: { deployedAt: new Date(started).toISOString(), ready: false, deployments: (fresh.state.deployment?.deployments ?? 0) + 1, outcomes },
    });
    const bad = outcomes.filter((o) => o.outcome === 'refused' || o.outcome === 'failed');
    const why = bad.map((o) => `${o.kind} ${o.name}: ${o.message}`).join('; ');
    const applied = outcomes.filter((o) => ['created', 'updated', 'unchanged'].includes(o.outcome)).length;
    return {
      solutionId,
      status,
      waitedSeconds: 0,
      applied: outcomes,
      objects: [],
      message:
        status === 'dry_run_refused'
          ? `Nothing was applied: ${bad.every((o) => SVC_REFUSAL.test(o.message ?? '')) ? 'svc refused' : 'the API server refused the dry run of'} ${why}`
          : `Stopped after ${applied} object(s) were applied: ${why}. The rest were not applied.${cleanup ? ` ${cleanup.summary}` : ''}`,
      ...(cleanup ? { cleanup: cleanup.answer } : {}),
      ...(ledgerIds.length ? { ledgerIds } : {}),
      nextSteps: nextSteps(solutionId, saved.state),
    };
  }

  /**
   * One object applied after the dry runs of all passed; with a recorder,
   * through it: one ledger entry (with the deploy-time dry-run verdict and
   * diff) whatever the API server answers. A refused apply's message names the entry.
   */
  private async applyOne(
    o: KubeObject,
    verdict: DryRunResult,
    run: { solutionId: string; intent: string; context?: ToolContext; ledgerIds: string[] },
    warnings: string[],
  ): Promise<AppliedObject> {
    const apply = () => this.writer.apply(o, { fieldManager: 'svc', warnings });
    if (!this.recorder || !run.context) return { object: await apply() };
    const done = await this.recorder.write(
      writeContextFor('deployManifests', run.solutionId, run.intent, run.context),
      {
        target: refOf(o),
        change: { method: 'apply', patchType: 'apply', body: o },
        dryRun: verdict.accepted ? { accepted: true, object: verdict.object } : { accepted: false, message: verdict.message },
      },
      apply,
    );
    if (done.ledgerId) run.ledgerIds.push(done.ledgerId);
    if (done.error === undefined) return { object: done.object!, ...(done.ledgerId ? { ledgerId: done.ledgerId } : {}) };
    if (done.error instanceof DomainError) throw new ApplyFailure(done.error, done.ledgerId);
    throw done.error;
  }

  private async statuses(objects: KubeObject[]): Promise<ObjectStatus[]> {
    return Promise.all(
      objects.map(async (o) => {
        const r = readiness(await this.reader.get(refOf(o)));
        return { ...refOf(o), ready: r.ready, reason: r.reason };
      }),
    );
  }

  /** Events of the object and, for a workload, Warning events of its pods (named `<name>-...`). */
  private async eventsAbout(s: ObjectStatus): Promise<{ object: string; type: string; reason: string; message: string; count: number }[]> {
    const own = await this.reader.events({ namespace: s.namespace, involvedObject: { kind: s.kind, name: s.name }, limit: MAX_EVENTS });
    let pods: ClusterEvent[] = [];
    if (s.kind === 'Deployment' || s.kind === 'StatefulSet') {
      const all = await this.reader.events({ namespace: s.namespace, limit: 200 });
      pods = all.filter((e) => e.involvedObject.kind === 'Pod' && e.involvedObject.name.startsWith(`${s.name}-`) && e.type === 'Warning');
    }
    return [...own, ...pods].slice(-MAX_EVENTS).map((e) => ({
      object: `${e.involvedObject.kind} ${e.involvedObject.name}`,
      type: e.type,
      reason: e.reason,
      message: e.message.slice(0, 500),
      count: e.count,
    }));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.schedule(Math.max(0, ms), resolve));
  }
}
