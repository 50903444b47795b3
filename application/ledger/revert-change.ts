import { actingFor } from '../cluster/acting-caller.js';
import { withinCluster } from '../cluster/current-cluster.js';
import { CALLER_KINDS, type Caller } from '../../domain/auth/caller.js';
import { ConflictError, DomainError, ForbiddenError, ValidationError } from '../../domain/errors.js';
import type { RiskLevel } from '../../domain/actions/cluster-action.js';
import { secondApproverReason, type ApprovalPolicy, type SessionOwner } from '../../domain/auth/session-owner.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import type { Metrics } from '../../domain/ports/metrics.js';
import { approvePlan, planDigestOf } from '../../domain/sessions/approval-session.js';
import { refOf as refOfTarget } from '../../domain/write-guard/resolved-target.js';
import type { ChangeEntry, InverseChange } from '../../domain/ledger/change-entry.js';
import type { FieldChange } from '../../domain/operations/object-diff.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { digestInputOf } from '../guarded-write/digest-input.js';
import type { GuardedWrite } from '../guarded-write/guarded-write.js';
import { sentChangeOf } from '../guarded-write/operation-calls.js';
import type { GuardedWriteResult } from '../guarded-write/write-request.js';
import { requireDependencies } from '../required-deps.js';
import type { WriteRecorder } from './change-recorder.js';
import { revertableEntry } from './revertable-entry.js';
import { entryRef, undoRefusal, undoRequest } from './undo-write.js';
import { viewFor, type ChangeView } from './change-view.js';

export interface RevertInput {
  id: string;
  /** Revert the recorded fields even though the object changed since (still dry-run first). */
  force?: boolean;
  /** The planDigest of the preview the caller reviewed: refused (409) when the undo would now be another; required of a second approver and to revert a revert. */
  planDigest?: string;
}

export interface RevertResult {
  original: ChangeView;
  revert: ChangeView;
}

/** What an undo would do, as the write guard previewed it: nothing is written. */
export interface RevertPreview {
  original: ChangeView;
  preview: {
    target: ResourceRef;
    /** The undo's write: a merge patch restoring the recorded fields, a delete of a created object, or an apply re-creating a deleted one. */
    method: 'patch' | 'delete' | 'apply';
    /** svc's risk of the undo (the write guard's), with every reason. */
    risk: RiskLevel;
    riskReasons: string[];
    /** The live object against the dry run's (Secret values as `***`; empty for a delete), at most 100 entries. */
    diff: FieldChange[];
    /** Diff entries left out past the cap. */
    diffOmitted?: number;
    /** The live object's resourceVersion the undo is pinned to (absent when it is re-created). */
    resourceVersion?: string;
    /** Set when the second-approver rule applies: another person than the change's author must send the planDigest. */
    secondApproverRequired?: string;
    warnings?: string[];
  };
  /** Send it back (`planDigest`) to revert exactly this: a mismatch is 409 CONFLICT. */
  planDigest: string;
}

/** What the revert checks besides the guarded-write pipeline: the second-approver rule, and the counters of svc's refusals. Required. */
export interface RevertRules {
  approval: ApprovalPolicy;
  metrics: Metrics;
  /**
   * With a fleet (SVC_CLUSTERS): the caller as the entry's cluster sees them
   * (its own roles), or a ForbiddenError where svc may not write (a read-only
   * cluster). The revert is then checked and made as that caller.
   */
  inCluster?: (cluster: string, caller: Caller) => Caller;
}

/** An undo the guard previewed and allowed: what is sent, and what the caller is shown. */
interface GuardedUndo {
  entry: ChangeEntry;
  checked: GuardedWriteResult & { dryRun: NonNullable<GuardedWriteResult['dryRun']> };
  preview: RevertPreview['preview'];
  planDigest: string;
}

/** Who made a change, as the second-approver rule compares people: the kind is the identity id's first part (`kind:issuer:subject`). */
function authorOf(entry: ChangeEntry): SessionOwner {
  const kind = CALLER_KINDS.find((k) => entry.caller.id?.startsWith(`${k}:`)) ?? 'anonymous';
  return {
    ...(entry.caller.id ? { id: entry.caller.id } : {}),
    username: entry.caller.username,
    kind,
    ...(entry.caller.person ? { person: entry.caller.person } : {}),
  };
}

/**
 * `POST /api/v1/changes/{id}/revert`: undoes one recorded change through the
 * guarded-write pipeline like any write. Re-reads the object; when it is
 * still as the change left it (its resourceVersion is the one recorded after
 * the change, or only status and server-written metadata moved since:
 * controllers bump the resourceVersion with every status write), dry-runs
 * the inverse pinned to the version just read, applies it through the
 * ChangeRecorder (a `revert` entry pointing at the original) and answers
 * both. 409 CONFLICT when the object changed since (with the diff between
 * the recorded and the live state; `force` reverts anyway), when the entry
 * was already reverted, was a refused change, or has no inverse, or when the
 * API server refuses the inverse; for a git delivery (undone in git: close
 * the pull request or revert the commit). Operators revert their own
 * changes, admins any.
 */
export class RevertChange {
  constructor(
    private readonly ledger: ChangeLedger,
    /** The one guarded-write pipeline (discovery, the allow-lists, the dry run, the write guard, every stored policy). */
    private readonly guard: GuardedWrite,
    private readonly recorder: WriteRecorder,
    private readonly rules: RevertRules,
    private readonly tracer?: Tracer,
  ) {
    requireDependencies('RevertChange', { ledger, guard, recorder, rules }, ['ledger', 'guard', 'recorder', 'rules']);
    requireDependencies('RevertChange', rules, ['approval', 'metrics']);
  }

  /** The undo's reads, dry run and write are made for `caller` (impersonated when SVC_KUBE_IMPERSONATE is on). */
  execute(input: RevertInput, caller: Caller): Promise<RevertResult> {
    return actingFor(caller, () => this.traced(input, caller));
  }

  /** `{"preview": true}`: the undo as the write guard judges it (dry run, diff, risk, refusals) and its planDigest; nothing is written. */
  preview(input: RevertInput, caller: Caller): Promise<RevertPreview> {
    return actingFor(caller, () =>
      this.inClusterOf(input, caller, async (found) => {
        const undo = await this.undoOf(found.entry, found.inverse, input.force === true);
        return { original: viewFor(undo.entry, caller), preview: undo.preview, planDigest: undo.planDigest };
      }),
    );
  }

  /** `work` on the entry, in the scope of the cluster it was made in (SVC_CLUSTERS): the undo goes to that cluster, whatever cluster the caller's work was for. */
  private async inClusterOf<T>(
    input: RevertInput,
    caller: Caller,
    work: (found: { entry: ChangeEntry; inverse: InverseChange }, who: Caller) => Promise<T>,
  ): Promise<T> {
    const found = await revertableEntry(this.ledger, input.id, caller);
    const cluster = found.entry.cluster;
    if (cluster === undefined) return work(found, caller);
    // the cluster's own rules and roles: checked again as the caller that cluster sees, before any request to it
    const who = this.rules.inCluster?.(cluster, caller) ?? caller;
    const checked = who === caller ? found : await revertableEntry(this.ledger, input.id, who);
    return withinCluster(cluster, () => work(checked, who));
  }

  /** One `ledger revert` span (like a tool's): the ledger reads, the cluster calls and the append under it, the entries it made as `svc.ledger.ids`. */
  private async traced(input: RevertInput, caller: Caller): Promise<RevertResult> {
    if (!this.tracer) return this.revert(input, caller);
    const attributes = {
      'svc.ledger.operation': 'revert',
      'svc.ledger.revert_of': input.id.slice(0, 80),
      'svc.ledger.force': input.force === true,
      'enduser.id': caller.username,
    };
    return this.tracer.inSpan('ledger revert', attributes, async (span) => {
      try {
        const result = await this.revert(input, caller);
        span.setAttributes({ 'svc.ledger.ids': [result.revert.id] });
        return result;
      } catch (e) {
        // an undo the API server refused is recorded too
        const refused = e instanceof DomainError ? (e.details as { revertId?: unknown } | undefined)?.revertId : undefined;
        if (typeof refused === 'string') span.setAttributes({ 'svc.ledger.ids': [refused] });
        throw e;
      }
    });
  }

  /**
   * Everything an undo is checked by before it is written, with no write:
   * who may revert, the entry (applied, not reverted, restorable), the target
   * resolved from discovery (never the recorded words alone), the
   * allow-lists (400), the object unchanged since (409 unless forced), the
   * server-side dry run (409 when refused), the write guard's judgement of
   * the dry run's object against the live one (its risk; an image outside
   * SVC_IMAGE_REGISTRIES 400) and every stored policy (400). Refusals by svc
   * are counted in the metrics.
   */

  /** The undo through the guarded-write pipeline: its refusals as the revert answers them (svc's 400, counted; the API server's 409). */
  private async undoOf(entry: ChangeEntry, inverse: InverseChange, force: boolean): Promise<GuardedUndo> {
    const r = await this.guard.check(undoRequest(entry, inverse, force), await this.guard.policies());
    if (r.refusal) throw undoRefusal(entry, r.refusal, (metric) => this.rules.metrics.refusal(metric));
    if (!r.dryRun || !r.target) throw new Error('a guarded write passed without a target or a dry run');
    const why = secondApproverReason(this.rules.approval, { risks: [r.risk], namespaces: [r.target.namespace] });
    const preview: RevertPreview['preview'] = {
      target: refOfTarget(r.target),
      method: inverse.method === 'create' ? 'apply' : inverse.method,
      risk: r.risk,
      riskReasons: r.riskReasons,
      diff: r.diff,
      ...(r.diffOmitted ? { diffOmitted: r.diffOmitted } : {}),
      ...(r.resourceVersion ? { resourceVersion: r.resourceVersion } : {}),
      ...(why ? { secondApproverRequired: why } : {}),
      ...(r.warnings ? { warnings: r.warnings } : {}),
    };
    // the write (pinned to the live version) and svc's verdict on it; not the dry run's server-assigned values, which differ at every dry run
    const planDigest = planDigestOf({ revertOf: entry.id, force, undo: digestInputOf(r), ...(why ? { secondApproverRequired: why } : {}) });
    return { entry, checked: { ...r, dryRun: r.dryRun }, preview, planDigest };
  }

  private revert(input: RevertInput, caller: Caller): Promise<RevertResult> {
    return this.inClusterOf(input, caller, (found, who) => this.revertIn(found.entry, found.inverse, input, who));
  }

  private async revertIn(found: ChangeEntry, inverse: InverseChange, input: RevertInput, caller: Caller): Promise<RevertResult> {
    const undo = await this.undoOf(found, inverse, input.force === true);
    const { entry, checked } = undo;
    this.approve(undo, input, caller);
    const recorded = await this.recorder.write(
      { caller, tool: 'revert', approval: { mode: 'manual', by: caller.username }, revertOf: entry.id, request: `revert ${entry.id}` },
      {
        target: entryRef(entry),
        // exactly what was dry-run: a deleted object comes back by server-side apply of the recorded state
        change: sentChangeOf(checked.operation),
        // the write guard's risk of the undo
        risk: undo.preview.risk,
        dryRun: { accepted: true, object: checked.dryRun.object },
      },
      () => this.guard.send(checked.operation),
    );
    if (recorded.error !== undefined) {
      const message = recorded.error instanceof Error ? recorded.error.message : 'the cluster call failed';
      throw new ConflictError(`The undo of ${entry.id} was refused by the API server: ${message}`, { revertId: recorded.ledgerId });
    }
    const revert = recorded.ledgerId ? await this.ledger.get(recorded.ledgerId) : undefined;
    if (!revert) throw new ConflictError(`The undo of ${entry.id} was applied but could not be recorded: ${recorded.ledgerError ?? 'unknown'}`);
    return { original: viewFor(entry, caller), revert: viewFor(revert, caller) };
  }

  /**
   * The undo as previewed may be written by this caller: a planDigest sent
   * must be the undo's now (409); a revert of a revert re-applies a change,
   * so it needs a preview's planDigest (400 without); the second-approver
   * rule (approvePlan, on svc's risk of the undo): the change's author gets
   * 403, another caller must send the digest they reviewed.
   */
  private approve(undo: GuardedUndo, input: RevertInput, caller: Caller): void {
    const { entry, planDigest } = undo;
    if (input.planDigest === undefined && entry.revertOf !== undefined) {
      this.rules.metrics.refusal('risk');
      throw new ValidationError(
        `Change ${entry.id} is itself the revert of ${entry.revertOf}: reverting it re-applies that change, so svc does it only for a reviewed preview: send {"preview": true}, then the planDigest it answers (${planDigest} now)`,
        { planDigest },
      );
    }
    try {
      approvePlan({
        sessionId: entry.id,
        subject: `The revert of change ${entry.id}`,
        state: { owner: authorOf(entry) },
        plan: { planDigest, risks: [undo.preview.risk], namespaces: [undo.checked.target?.namespace] },
        caller,
        policy: this.rules.approval,
        sentDigest: input.planDigest,
        how: 'another operator or an admin must revert it, sending the planDigest of its preview',
      });
    } catch (e) {
      if (e instanceof ForbiddenError || e instanceof ValidationError) this.rules.metrics.refusal('risk');
      throw e;
    }
  }
}
