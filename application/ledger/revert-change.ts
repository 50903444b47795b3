import { actingFor } from '../cluster/acting-caller.js';
import { hasRole, type Caller, type CallerKind } from '../../domain/auth/caller.js';
import type { DryRunResult, KubeObject, WritePreconditions } from '../../domain/cluster/kube-types.js';
import { ConflictError, DomainError, ERROR_CODES, ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.js';
import type { RiskLevel } from '../../domain/actions/cluster-action.js';
import { guardSettingsOf, OPEN_WRITE_SCOPE, type WriteScope } from '../../domain/actions/write-scope.js';
import { actsAs, NO_SECOND_APPROVER, secondApproverReason, type ApprovalPolicy, type SessionOwner } from '../../domain/auth/session-owner.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import { redactObject } from '../../domain/ledger/object-state.js';
import { policyRefusal } from '../../domain/orgdata/policy-match.js';
import { NO_METRICS, type Metrics, type RefusalReason } from '../../domain/ports/metrics.js';
import { approvePlan, planDigestOf } from '../../domain/sessions/approval-session.js';
import { refOf as refOfTarget, resolveTarget, type ResolvedTarget } from '../../domain/write-guard/resolved-target.js';
import type { WriteAsSent } from '../../domain/write-guard/sent-write.js';
import { checkBeforeIo, judgeWrite } from '../../domain/write-guard/write-guard.js';
import { NO_POLICIES, type PolicySource } from '../actions/policy-source.js';
import type { ChangeEntry, InverseChange, SentChange } from '../../domain/ledger/change-entry.js';
import { deleteBody, patchBody } from '../../domain/cluster/write-bodies.js';
import { objectFromState } from '../../domain/ledger/object-state.js';
import { diffObjects, type FieldChange } from '../../domain/operations/object-diff.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { ChangeRecorder } from './change-recorder.js';
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
    /** The live object against the dry run's (Secret values and the last-applied annotation as `***`; empty for a delete). */
    diff: FieldChange[];
    /** The live object's resourceVersion the undo is pinned to (absent when it is re-created). */
    resourceVersion?: string;
    /** Set when the second-approver rule applies: another person than the change's author must send the planDigest. */
    secondApproverRequired?: string;
    warnings?: string[];
  };
  /** Send it back (`planDigest`) to revert exactly this: a mismatch is 409 CONFLICT. */
  planDigest: string;
}

/** What the revert checks besides the API server: the allow-lists, the organisation's policies, the second-approver rule, the refusal counters. */
export interface RevertGuard {
  scope: WriteScope;
  policies: PolicySource;
  approval: ApprovalPolicy;
  metrics: Metrics;
}

const OPEN_GUARD: RevertGuard = { scope: OPEN_WRITE_SCOPE, policies: NO_POLICIES, approval: NO_SECOND_APPROVER, metrics: NO_METRICS };

/** An undo the guard previewed and allowed: what is sent, and what the caller is shown. */
interface GuardedUndo {
  entry: ChangeEntry;
  inverse: InverseChange;
  pin: WritePreconditions;
  target: ResolvedTarget;
  verdict: Extract<DryRunResult, { accepted: true }>;
  preview: RevertPreview['preview'];
  planDigest: string;
}

/** The undo as the write guard judges it. */
function writeOf(inverse: InverseChange): WriteAsSent {
  if (inverse.method === 'patch') return { verb: 'patch', patchType: 'merge', patch: inverse.body };
  return { verb: inverse.method === 'delete' ? 'delete' : 'apply' };
}

const CALLER_KINDS: readonly CallerKind[] = ['static', 'tokens-file', 'oidc', 'anonymous'];

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

const redacted = (kind: string, o: KubeObject | null): KubeObject | null => (o ? (redactObject(kind, o) as KubeObject) : null);

/** The undo as it is sent (see send): the inverse with the precondition it is pinned to. */
function sentInverse(inverse: InverseChange, pin: WritePreconditions): SentChange {
  switch (inverse.method) {
    case 'patch':
      return { method: 'patch', patchType: 'merge', body: patchBody(inverse.body, pin.resourceVersion) };
    case 'delete': {
      const body = deleteBody(pin.resourceVersion);
      return { method: 'delete', ...(body ? { body } : {}) };
    }
    case 'create':
      return { method: 'apply', patchType: 'apply', body: inverse.body };
  }
}

const refOf = (e: ChangeEntry) => ({ apiVersion: e.target.apiVersion, kind: e.target.kind, name: e.target.name, namespace: e.target.namespace });

/** A git delivery changed a repository, not a cluster: svc does not undo it, git does (the message says how). */
function gitRevertRefusal(entry: ChangeEntry): ConflictError {
  const git = entry.git!;
  const where = `branch ${git.branch} of ${git.repository}`;
  const how =
    entry.outcome.status !== 'applied' || !git.commit
      ? `nothing reached ${where} (${entry.outcome.status}), so there is nothing to revert`
      : git.pullRequest
        ? `close pull request #${git.pullRequest.number} (${git.pullRequest.url}) if it is not merged, or revert commit ${git.commit} in ${git.repository} if it is`
        : `delete ${where}, or revert commit ${git.commit} there if it was merged`;
  return new ConflictError(`Change ${entry.id} was delivered through git, not written to a cluster: revert it in git: ${how}`, {
    id: entry.id,
    repository: git.repository,
    branch: git.branch,
    ...(git.commit ? { commit: git.commit } : {}),
    ...(git.pullRequest ? { pullRequest: git.pullRequest.url } : {}),
  });
}

/**
 * `POST /api/v1/changes/{id}/revert`: undoes one recorded change. Re-reads
 * the object; when it is still as the change left it (its resourceVersion
 * is the one recorded after the change, or only status and server-written
 * metadata moved since: controllers bump the resourceVersion with every
 * status write), dry-runs the inverse, applies it
 * through the ChangeRecorder (a `revert` entry pointing at the original) and
 * answers both. 409 CONFLICT when the object changed since (with the diff
 * between the recorded and the live state; `force` reverts anyway), when the
 * entry was already reverted, was a refused change, or has no inverse, or
 * when the API server refuses the inverse; for a git delivery (undone in git:
 * close the pull request or revert the commit). Operators revert their own
 * changes, admins any.
 */
/** Fields the cluster's controllers set on an object after its create (diff paths): the binder's, the scheduler's, the deployment controller's. */
const CLUSTER_FILLED: readonly RegExp[] = [
  /^spec\.volumeName$/,
  /^spec\.nodeName$/,
  /^metadata\.annotations\["(pv\.kubernetes\.io\/[^"]+|volume\.(beta\.)?kubernetes\.io\/[^"]+|deployment\.kubernetes\.io\/revision)"\]$/,
];
const filledByTheCluster = (path: string): boolean => CLUSTER_FILLED.some((re) => re.test(path));

export class RevertChange {
  constructor(
    private readonly ledger: ChangeLedger,
    private readonly reader: ClusterReader,
    private readonly writer: ClusterWriter,
    private readonly recorder: ChangeRecorder,
    private readonly tracer?: Tracer,
    private readonly guard: RevertGuard = OPEN_GUARD,
  ) {}

  /** The undo's reads, dry run and write are made for `caller` (impersonated when SVC_KUBE_IMPERSONATE is on). */
  execute(input: RevertInput, caller: Caller): Promise<RevertResult> {
    return actingFor(caller, () => this.traced(input, caller));
  }

  /** `{"preview": true}`: the undo as the write guard judges it (dry run, diff, risk, refusals) and its planDigest; nothing is written. */
  preview(input: RevertInput, caller: Caller): Promise<RevertPreview> {
    return actingFor(caller, async () => {
      const undo = await this.guarded(input, caller);
      return { original: viewFor(undo.entry, caller), preview: undo.preview, planDigest: undo.planDigest };
    });
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
  private async guarded(input: RevertInput, caller: Caller): Promise<GuardedUndo> {
    if (!hasRole(caller, 'operator'))
      throw new ForbiddenError(`Reverting a change needs the operator role; ${caller.username} does not hold it`, { required: 'operator' });
    const entry = await this.ledger.get(input.id);
    if (!entry)
      throw new NotFoundError(ERROR_CODES.NOT_FOUND, `No change ${JSON.stringify(input.id.slice(0, 80))} in the ledger (unknown, or removed by retention)`);
    // the same identity (kind, issuer, subject) or the same person by the people file, never the same name alone; an entry recorded before ids were is an admin's to revert
    if (!hasRole(caller, 'admin') && !actsAs(entry.caller, caller)) {
      const whose = entry.caller.id === undefined ? `${entry.caller.username}'s change (recorded without an identity id)` : `${entry.caller.username}'s change`;
      throw new ForbiddenError(`Reverting ${whose} needs the admin role; an operator reverts only their own`, { required: 'admin' });
    }
    if (entry.git) throw gitRevertRefusal(entry);
    if (entry.type === 'intent') {
      const outcome = (await this.ledger.list({ intentId: entry.id }, { limit: 1 })).entries[0];
      throw new ConflictError(
        outcome
          ? `Entry ${entry.id} is the intent of a write, not the change: revert ${outcome.id}, which records its outcome`
          : `Entry ${entry.id} is the intent of a write whose outcome is not recorded yet (svc records it after the API server answers, or recovery after reading the object): there is nothing to revert yet`,
        { id: entry.id, ...(outcome ? { outcomeId: outcome.id } : {}) },
      );
    }
    if (entry.outcome.status !== 'applied') {
      const why = 'message' in entry.outcome ? `${entry.outcome.status}: ${entry.outcome.message}` : entry.outcome.status;
      throw new ConflictError(`Change ${entry.id} was not applied (${why}): there is nothing to revert`, {
        id: entry.id,
      });
    }
    const earlier = (await this.ledger.list({ revertOf: entry.id, outcome: 'applied' }, { limit: 1 })).entries[0];
    if (earlier) throw new ConflictError(`Change ${entry.id} was already reverted by ${earlier.id} at ${earlier.at}`, { id: entry.id, revertedBy: earlier.id });
    const inverse = entry.inverse;
    if (!inverse)
      throw new ConflictError(`Change ${entry.id} has no recorded inverse (nothing restorable changed, or it needs Secret values the ledger does not keep)`);
    const settings = guardSettingsOf(this.guard.scope);
    const write = writeOf(inverse);
    const target = await this.resolve(entry);
    const outside = checkBeforeIo(target, write, settings);
    if (outside) throw this.refusal('allow-list', `svc refuses the undo of ${entry.id}: ${outside.reason}`, outside.code);
    const live = await this.reader.get(refOf(entry));
    this.checkUnchanged(entry, inverse, live, input.force === true);
    // pinned to the version just read: a change made between this check and the write is a 409, never overwritten
    const pin: WritePreconditions = typeof live?.metadata.resourceVersion === 'string' ? { resourceVersion: live.metadata.resourceVersion } : {};
    const verdict = await this.dryRun(entry, inverse, pin);
    if (!verdict.accepted)
      throw new ConflictError(`The API server refuses the undo of ${entry.id}: ${verdict.message}`, { reason: verdict.reason, causes: verdict.causes });
    const result = inverse.method === 'delete' ? null : verdict.object;
    const judged = judgeWrite({ target, live, result, write, settings });
    if (!judged.allowed) throw this.refusal('allow-list', `svc refuses the undo of ${entry.id}: ${judged.reason}`, judged.code);
    if (result) {
      const policies = await this.guard.policies.stored();
      const broken = policies.unreadable
        ? `svc writes nothing it cannot check against the organisation's policies: ${policies.unreadable}`
        : policyRefusal(result, policies.policies);
      if (broken)
        throw this.refusal('policy', `svc refuses the undo of ${entry.id}: ${broken}`, policies.unreadable ? 'PoliciesUnreadable' : 'PolicyViolation');
    }
    const diff = result ? diffObjects(redacted(target.kind, live), redacted(target.kind, result)) : [];
    const why = secondApproverReason(this.guard.approval, { risks: [judged.risk], namespaces: [target.namespace] });
    const preview: RevertPreview['preview'] = {
      target: refOfTarget(target),
      method: inverse.method === 'create' ? 'apply' : inverse.method,
      risk: judged.risk,
      riskReasons: judged.riskReasons,
      diff,
      ...pin,
      ...(why ? { secondApproverRequired: why } : {}),
      ...(verdict.warnings?.length ? { warnings: verdict.warnings } : {}),
    };
    // the write (pinned to the live version) and svc's verdict on it; not the dry run's server-assigned values, which differ at every dry run
    const { diff: _diff, warnings: _warnings, ...verdictShown } = preview;
    const planDigest = planDigestOf({ revertOf: entry.id, sent: sentInverse(inverse, pin), force: input.force === true, preview: verdictShown });
    return { entry, inverse, pin, target, verdict, preview, planDigest };
  }

  /** The target as discovery resolves it now: a kind the cluster no longer serves (or whose scope changed) cannot be undone by svc. */
  private async resolve(entry: ChangeEntry): Promise<ResolvedTarget> {
    const served = await this.reader.resolveKind(entry.target.apiVersion, entry.target.kind);
    const resolved = resolveTarget(refOf(entry), served ?? undefined);
    if ('target' in resolved) return resolved.target;
    throw this.refusal('allow-list', `svc refuses the undo of ${entry.id}: ${resolved.refusal}`, 'InvalidTarget');
  }

  private refusal(metric: RefusalReason, message: string, reason: string): ValidationError {
    this.guard.metrics.refusal(metric);
    return new ValidationError(message, { reason });
  }

  private async revert(input: RevertInput, caller: Caller): Promise<RevertResult> {
    const undo = await this.guarded(input, caller);
    const { entry, inverse, pin, verdict } = undo;
    this.approve(undo, input, caller);
    const recorded = await this.recorder.write(
      { caller, tool: 'revert', approval: { mode: 'manual', by: caller.username }, revertOf: entry.id, request: `revert ${entry.id}` },
      {
        target: refOf(entry),
        // a deleted object comes back by server-side apply of the recorded state
        change: sentInverse(inverse, pin),
        // the write guard's risk of the undo
        risk: undo.preview.risk,
        dryRun: { accepted: true, object: verdict.object },
      },
      () => this.send(entry, inverse, pin),
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
      this.guard.metrics.refusal('risk');
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
        plan: { planDigest, risks: [undo.preview.risk], namespaces: [undo.target.namespace] },
        caller,
        policy: this.guard.approval,
        sentDigest: input.planDigest,
        how: 'another operator or an admin must revert it, sending the planDigest of its preview',
      });
    } catch (e) {
      if (e instanceof ForbiddenError || e instanceof ValidationError) this.guard.metrics.refusal('risk');
      throw e;
    }
  }

  /** The object must still be as the change left it, unless forced (a deleted object cannot be re-created over a live one, forced or not). */
  private checkUnchanged(entry: ChangeEntry, inverse: InverseChange, live: KubeObject | null, force: boolean): void {
    if (inverse.method === 'create') {
      if (live)
        throw new ConflictError(
          `${entry.target.kind}/${entry.target.name} exists again since ${entry.id} deleted it: delete it first to restore the recorded one`,
        );
      return;
    }
    if (!live) throw new ConflictError(`${entry.target.kind}/${entry.target.name} no longer exists: nothing to revert ${entry.id} on`);
    const now = live.metadata.resourceVersion;
    if (force || now === entry.resourceVersionAfter) return;
    // controllers write status (and so a new resourceVersion) all the time: what counts is whether the fields changed
    const recorded = entry.after ? objectFromState(entry.target, entry.after) : null;
    // Undoing a create deletes what svc made: a field the cluster's own controllers fill in after a create
    // (a claim's spec.volumeName set by the binder) was nobody's change to protect. Anything else added
    // since (a label someone put on it) is, and so is any difference when an undo restores values.
    const diff = diffObjects(recorded, live).filter((d) => !(inverse.method === 'delete' && d.from === undefined && filledByTheCluster(d.path)));
    if (recorded && diff.length === 0) return;
    throw new ConflictError(
      `${entry.target.kind}/${entry.target.name} changed since ${entry.id} (resourceVersion ${entry.resourceVersionAfter ?? 'unknown'} then, ${now} now); send force: true to revert the recorded fields anyway`,
      { recordedResourceVersion: entry.resourceVersionAfter, liveResourceVersion: now, diff },
    );
  }

  /** The inverse is a JSON merge patch whatever the kind: it restores whole values (arrays included), which is what an undo means. */
  private dryRun(entry: ChangeEntry, inverse: InverseChange, pin: WritePreconditions): Promise<DryRunResult> {
    switch (inverse.method) {
      case 'patch':
        return this.writer.dryRunPatch(refOf(entry), inverse.body, { patchType: 'merge', ...pin });
      case 'delete':
        return this.writer.dryRunDelete(refOf(entry), pin);
      case 'create':
        return this.writer.dryRunApply(inverse.body as unknown as KubeObject);
    }
  }

  private async send(entry: ChangeEntry, inverse: InverseChange, pin: WritePreconditions): Promise<KubeObject | undefined> {
    switch (inverse.method) {
      case 'patch':
        return this.writer.patch(refOf(entry), inverse.body, { patchType: 'merge', ...pin });
      case 'delete':
        await this.writer.delete(refOf(entry), pin);
        return undefined;
      case 'create':
        return this.writer.apply(inverse.body as unknown as KubeObject);
    }
  }
}
