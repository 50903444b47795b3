import type { ClusterEvent, KubeObject } from '../../domain/cluster/kube-types.js';
import { applyOrder } from '../../domain/deployment/manifest-checks.js';
import { readiness } from '../../domain/deployment/readiness.js';
import { assertCallAllowed, nextSteps } from '../../domain/deployment/workflow.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import type { ClusterDeployOutput } from '../../domain/tools/outputs/deployment-outputs.js';
import type { ToolContext, ToolHandler } from '../tool-handler.js';
import { reportProgress, throwIfCancelled } from '../runs/run-scope.js';
import { DomainError, ForbiddenError } from '../../domain/errors.js';
import { sentChangeOf } from '../guarded-write/operation-calls.js';
import { writeContextFor, type WriteRecorder } from '../ledger/change-recorder.js';
import type { GuardedWrite } from '../guarded-write/guarded-write.js';
import type { GuardedWriteResult } from '../guarded-write/write-request.js';
import { requireDependencies } from '../required-deps.js';
import { callerIn } from '../sessions/session-access.js';
import {
  ApplyFailure,
  applyAll,
  assertDeployable,
  plannedOutcome,
  previewDeploy,
  refOf,
  type AppliedObject,
  type ObjectOutcome,
  type PreviewedObject,
} from './deploy-checks.js';
import type { SolutionState } from '../../domain/deployment/solution.js';
import type { Metrics } from '../../domain/ports/metrics.js';
import { refusalMetric } from '../../domain/write-guard/refusal-metric.js';
import { cleanupOffer, type CleanupOffer } from './deploy-cleanup.js';
import type { SolutionSessions } from './solution-sessions.js';
import {
  healthStep,
  onFailureFor,
  type ExecutionVerification,
  type ExecutionVerifier,
  type OnFailure,
  type VerifySnapshot,
} from '../actions/verify-execution.js';

export const DEFAULT_DEPLOY_TIMEOUT_S = 30;

/** What deployManifests is built from; the safety collaborators (the guarded-write pipeline, the recorder, the verdict, the refusal counters) are required. */
export interface DeployManifestsDeps {
  /** The one guarded-write pipeline: the write scope and every stored policy included. */
  guard: GuardedWrite;
  reader: ClusterReader;
  sessions: SolutionSessions;
  clock: Clock & Timers;
  /** Records each applied object in the change ledger. */
  recorder: WriteRecorder;
  /** Counts the guard's refusals by reason. */
  metrics: Metrics;
  /** The deterministic verdict after the deploy, and the revert of a degraded one (docs/verify.md). */
  verify: ExecutionVerifier;
}
/** An outcome svc refused itself (the organisation's policies), not the API server. */
const SVC_REFUSAL = /^(PolicyViolation|PoliciesUnreadable|OutsideSolution|InvalidTarget|OutsideWriteScope|UnsafePatch|ImageRegistry): /;
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
 * outside the write allow-lists (400, before any request); then previews
 * every object through the write guard before applying any (previewDeploy:
 * discovery, the chosen solution's kinds by group and kind, the
 * allow-lists, the dry run, the guard's risk of the dry run's object against
 * the live one, every stored policy). `preview: true` answers that preview
 * (status `previewed`, per object its effect, diff, risk and reasons, and
 * the planDigest) and writes nothing. A refusal of any object applies
 * nothing (`dry_run_refused`, each refusal counted in the metrics). Then the
 * one approval rule (approvePlan): a planDigest sent that is not the plan's
 * is 409; with SVC_REQUIRE_SECOND_APPROVER, a plan with a high-risk object
 * (by the guard's risk: cluster-scoped and sensitive kinds, privileged pods,
 * a new registry) is for another operator than its starter, who sends the
 * digest they previewed. Then server-side applies them in order (field
 * manager `svc`; applying the same objects again changes nothing, so a
 * re-deploy is idempotent), each recorded in the ledger with the guard's
 * risk. A failure stops the rest (`apply_failed`) and the answer offers the
 * call that deletes what this run created (through the ledger's revert,
 * itself guarded). Each object's outcome and risk is answered and recorded
 * on the session. Then polls until every object is ready or the timeout
 * ends; on timeout the pending objects are named with why, from their
 * events and their pods' events.
 */
export class DeployManifests implements ToolHandler<ToolInput<'deployManifests'>> {
  private readonly guard: GuardedWrite;
  private readonly reader: ClusterReader;
  private readonly sessions: SolutionSessions;
  private readonly clock: Clock & Timers;
  private readonly recorder: WriteRecorder;
  private readonly metrics: Metrics;
  private readonly verify: ExecutionVerifier;

  constructor(
    deps: DeployManifestsDeps,
    private readonly pollIntervalMs = 1000,
  ) {
    requireDependencies('DeployManifests', deps, ['guard', 'reader', 'sessions', 'clock', 'recorder', 'metrics', 'verify']);
    ({
      guard: this.guard,
      reader: this.reader,
      sessions: this.sessions,
      clock: this.clock,
      recorder: this.recorder,
      metrics: this.metrics,
      verify: this.verify,
    } = deps);
  }

  async execute(input: ToolInput<'deployManifests'>, context?: ToolContext): Promise<ClusterDeployOutput> {
    const { solutionId, timeout = DEFAULT_DEPLOY_TIMEOUT_S, onFailure } = input;
    const session = await this.sessions.load(solutionId);
    assertCallAllowed('deployManifests', solutionId, session.state);
    // before any request: who may look at this deploy (its starter or an admin; with the second-approver rule, any operator, who may approve it)
    this.sessions.requireDeployReader(session, context);
    const objects = applyOrder(session.state.manifests!.objects);
    assertDeployable(objects, session.state.solution, this.guard.scope);
    const ledgerIds: string[] = [];
    const started = this.clock.now();
    const checked = await previewDeploy(this.guard, this.reader, objects, session.state.solution);
    for (const p of checked.objects) {
      const metric = p.refusal && refusalMetric(p.refusal.reason);
      if (metric) this.metrics.refusal(metric);
    }
    const planned = checked.objects.map(plannedOutcome);
    const shown = { preview: checked.objects, planDigest: checked.planDigest };
    if (input.preview) return this.previewed(solutionId, session.state, planned, shown);
    // a plan svc refuses is answered with why before anyone approves anything: nothing of it is applied whoever asks
    if (checked.refused)
      return this.stopped(
        solutionId,
        'dry_run_refused',
        planned.map((o) => (o.outcome === 'refused' ? o : { ...o, outcome: 'not-run' as const })),
        undefined,
        started,
        [],
        shown,
      );
    try {
      this.sessions.approveDeploy(
        session,
        { planDigest: checked.planDigest, risks: planned.map((o) => o.risk), namespaces: planned.map((o) => o.namespace) },
        input.planDigest,
        context,
      );
    } catch (e) {
      if (e instanceof ForbiddenError && (e.details as { secondApproverRequired?: unknown } | undefined)?.secondApproverRequired) this.metrics.refusal('risk');
      throw e;
    }
    const snapshot = await this.verify.snapshot(objects.map(refOf));
    const run = { solutionId, intent: session.state.intent, context, ledgerIds };
    const { outcomes, applied } = await applyAll((o, i, warnings) => this.applyOne(checked.checked[i], planned[i], run, warnings), objects, planned);
    if (outcomes.some((o) => o.outcome === 'failed'))
      return this.stopped(solutionId, 'apply_failed', outcomes, cleanupOffer(solutionId, outcomes), started, ledgerIds, shown);
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
    const health = await this.verdict(snapshot, outcomes, onFailure, context);
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
      planDigest: checked.planDigest,
      ...(ready ? {} : { pending }),
      ...(ready && health?.verdict !== 'degraded'
        ? {}
        : {
            message: [
              ready ? '' : `Not ready after ${timeout} s: ${pending.map((p) => `${p.kind} ${p.name} (${p.reason})`).join(', ')}.`,
              health?.verdict === 'degraded' ? healthStep(health, 'health') : '',
            ]
              .filter(Boolean)
              .join(' '),
          }),
      ...(health ? { health } : {}),
      nextSteps: nextSteps(solutionId, saved.state),
    };
  }

  /** svc's verdict on the objects this deploy created or changed, over the settle window after the readiness wait. */
  private async verdict(
    snapshot: VerifySnapshot,
    outcomes: ObjectOutcome[],
    onFailure: OnFailure | undefined,
    context: ToolContext | undefined,
  ): Promise<ExecutionVerification | undefined> {
    const writes = outcomes
      .filter((o) => o.outcome === 'created' || o.outcome === 'updated')
      .map((o) => ({
        target: { apiVersion: o.apiVersion, kind: o.kind, name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}) },
        ...(o.ledgerId ? { ledgerId: o.ledgerId } : {}),
      }));
    if (writes.length === 0) return undefined;
    return this.verify.verify({
      snapshot,
      writes,
      // deployManifests has no run deadline of its own: the readiness wait (timeout) came first, then the window
      deadlineMs: this.verify.settings.windowMs,
      onFailure: onFailureFor(onFailure, this.verify.settings, false),
      ...(context ? { caller: context.caller } : {}),
      tool: 'deployManifests',
    });
  }

  /** A deploy that stopped before the wait: recorded on the session (not ready) and answered with each object's outcome. */
  private async stopped(
    solutionId: string,
    status: 'dry_run_refused' | 'apply_failed',
    outcomes: ObjectOutcome[],
    cleanup: CleanupOffer | undefined,
    started: number,
    ledgerIds: string[],
    shown: { preview: PreviewedObject[]; planDigest: string },
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
      ...(status === 'dry_run_refused' ? shown : { planDigest: shown.planDigest }),
      nextSteps: nextSteps(solutionId, saved.state),
    };
  }

  /** `preview: true`: what the deploy would do to each object (nothing is written, the session is not changed), with the planDigest a deploy may send. */
  private previewed(
    solutionId: string,
    state: SolutionState,
    planned: ObjectOutcome[],
    shown: { preview: PreviewedObject[]; planDigest: string },
  ): ClusterDeployOutput {
    const refused = shown.preview.filter((p) => p.refusal);
    const high = shown.preview.filter((p) => !p.refusal && p.risk === 'high');
    const why = refused.map((p) => `${p.kind} ${p.name}: ${p.refusal!.reason}: ${p.refusal!.message}`).join('; ');
    return {
      solutionId,
      status: 'previewed',
      waitedSeconds: 0,
      applied: planned.map((o) => (o.outcome === 'refused' ? o : { ...o, outcome: 'not-run' as const, message: 'previewed, not applied' })),
      objects: [],
      ...shown,
      message: refused.length
        ? `Nothing was written. A deploy would apply nothing: ${why}`
        : `Nothing was written. Deploying applies ${planned.length} object(s)${high.length ? `, ${high.length} of them high risk (${high.map((p) => `${p.kind} ${p.name}`).join(', ')})` : ''}; send planDigest ${shown.planDigest} with the deploy to apply exactly this plan.`,
      nextSteps: nextSteps(solutionId, state),
    };
  }

  /**
   * One object applied after the checks of all passed, exactly as its dry
   * run sent it, through the recorder: one ledger entry (with the deploy-time
   * dry-run verdict and diff) whatever the API server answers. A refused
   * apply's message names the entry.
   */
  private async applyOne(
    checked: GuardedWriteResult,
    planned: ObjectOutcome,
    run: { solutionId: string; intent: string; context?: ToolContext; ledgerIds: string[] },
    warnings: string[],
  ): Promise<AppliedObject> {
    const apply = () => this.guard.send(checked.operation, warnings);
    const done = await this.recorder.write(
      writeContextFor('deployManifests', run.solutionId, run.intent, run.context ?? { caller: callerIn(run.context) }),
      {
        target: checked.ref,
        change: sentChangeOf(checked.operation),
        // the write guard's risk, never a model's
        risk: planned.risk,
        dryRun: checked.dryRun ? { accepted: true, object: checked.dryRun.object } : { accepted: false, message: checked.refusal?.message ?? 'not dry-run' },
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
