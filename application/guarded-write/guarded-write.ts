import type { ClusterOperation } from '../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { guardSettingsOf, type WriteScope } from '../../domain/actions/write-scope.js';
import { diffSegments } from '../../domain/operations/object-diff.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import { targetFindings } from '../../domain/write-guard/content-risk.js';
import { refOf, resolveTarget, type ResolvedTarget } from '../../domain/write-guard/resolved-target.js';
import type { WriteAsSent } from '../../domain/write-guard/sent-write.js';
import { assessTarget, checkBeforeIo, judgeWrite, type GuardRefusal, type GuardSettings } from '../../domain/write-guard/write-guard.js';
import type { PolicySource, StoredPolicies } from '../actions/policy-source.js';
import { requireDependencies } from '../required-deps.js';
import { namespaceLabelsOf } from './namespace-labels.js';
import { dryRunOperation, sendOperation, writeAsSent } from './operation-calls.js';
import { policyCheck } from './policy-check.js';
import { stepOf } from './step-failure.js';
import { WriteRedaction } from './write-redaction.js';
import type { GuardedWriteResult, PreparedWrite, WriteRefusal, WriteRequest } from './write-request.js';

/** What every guarded write is checked by; none may be left out (tests pass OPEN_WRITE_SCOPE and NO_POLICIES by name). */
export interface GuardedWriteDeps {
  reader: ClusterReader;
  writer: ClusterWriter;
  /** SVC_WRITE_NAMESPACES, SVC_WRITE_KINDS, SVC_IMAGE_REGISTRIES and svc's own namespace. */
  scope: WriteScope;
  /** The organisation's policies: each dry run's object is checked against every stored one. */
  policies: PolicySource;
  /** With a fleet (SVC_CLUSTERS): the scope of the cluster the current work is for (its kinds, protected namespaces, Pod Security level), in place of `scope`. */
  clusterScope?: () => WriteScope | undefined;
}

const fromGuard = (r: GuardRefusal): WriteRefusal => ({ reason: r.code, message: r.reason, causes: [] });

/**
 * The one guarded-write pipeline: every write svc makes to a cluster (a
 * remediate or operate action previewed and re-checked at execution, a
 * deployManifests object, a ledger revert) runs through `check`, in this
 * order: the target resolved from discovery; the caller's own rule on it;
 * the allow-lists and unsafe patches (checkBeforeIo) before any other
 * request; the live object and its Namespace's labels read; the write
 * prepared against the live object (pinned, a create, computed operations);
 * the unsafe-patch check of what will really be sent; the server-side dry
 * run as it will be sent; the write guard's judgement of the dry run's
 * object against the live one; every stored policy; the redacted diff. A
 * step that refuses ends the check with that refusal (a policy's after the
 * judgement, with its risk and diff). `send` is the write itself.
 */
export class GuardedWrite {
  private readonly baseSettings: GuardSettings;

  constructor(private readonly deps: GuardedWriteDeps) {
    requireDependencies('GuardedWrite', deps, ['reader', 'writer', 'scope', 'policies']);
    this.baseSettings = guardSettingsOf(deps.scope);
  }

  /** The scope of the cluster the current work is for (a fleet's member's own), else the configured one. */
  get scope(): WriteScope {
    return this.deps.clusterScope?.() ?? this.deps.scope;
  }

  private get settings(): GuardSettings {
    const own = this.deps.clusterScope?.();
    return own ? guardSettingsOf(own) : this.baseSettings;
  }

  /** Every stored policy, read once for the writes of one plan (and again at its execution). */
  policies(): Promise<StoredPolicies> {
    return this.deps.policies.stored();
  }

  /** Sends a write the pipeline checked; the object as stored (undefined after a delete), the server's warnings into `warnings`. */
  send(operation: ClusterOperation, warnings: string[] = []): Promise<KubeObject | undefined> {
    return sendOperation(this.deps.writer, operation, warnings);
  }

  async check(request: WriteRequest, policies: StoredPolicies): Promise<GuardedWriteResult> {
    const { reader, writer } = this.deps;
    const redaction = WriteRedaction.forWrite(request.ref, request.operation);
    const refused = (refusal: WriteRefusal, known: Partial<GuardedWriteResult> & { write?: WriteAsSent } = {}): GuardedWriteResult => {
      const { write = writeAsSent(request.operation), ...rest } = known;
      const { risk, riskReasons } = assessTarget(known.target, write, this.settings, request.label);
      const shown = redaction.withObjects(known.live);
      return { ref: request.ref, operation: request.operation, diff: [], ...rest, risk, riskReasons, refusal: shown.refusal(refusal) };
    };
    const resolved = await this.resolve(request);
    if ('refusal' in resolved) return refused(resolved.refusal);
    const { target } = resolved;
    const early = request.admit?.(target) ?? guardRefusal(checkBeforeIo(target, writeAsSent(request.operation), this.settings));
    if (early) return refused(early, { target });
    const read = await stepOf(() => reader.get(refOf(target)));
    if ('refusal' in read) return refused(read.refusal, { target });
    const live = read.value;
    const namespaceLabels = await namespaceLabelsOf(reader, target);
    const prepared: PreparedWrite = request.prepare ? request.prepare(live) : { operation: request.operation };
    const { operation } = prepared;
    const write: WriteAsSent = { ...writeAsSent(operation), ...(prepared.asked ? { asked: prepared.asked } : {}) };
    const known = { target, live, ...effectOf(operation, live), operation, prepared, write };
    const unsafe = prepared.refusal ?? guardRefusal(checkBeforeIo(target, write, this.settings));
    if (unsafe) return refused(unsafe, known);
    const ran = await stepOf(() => dryRunOperation(writer, operation));
    if ('refusal' in ran) return refused(ran.refusal, known);
    const verdict = ran.value;
    if (!verdict.accepted) return refused({ reason: verdict.reason, message: verdict.message, causes: verdict.causes }, known);
    const result = operation.method === 'delete' ? null : verdict.object;
    const judged = judgeWrite({ target, live, result, write, settings: this.settings, label: request.label, namespaceLabels });
    if (!judged.allowed) return refused(fromGuard(judged), known);
    const shown = redaction.withObjects(live, result);
    const changes = result ? diffSegments(live, result) : [];
    const violation = policyCheck(result, policies);
    const { write: _judged, ...kept } = known;
    return {
      ref: request.ref,
      ...kept,
      risk: judged.risk,
      riskReasons: judged.riskReasons,
      sensitive: targetFindings(target, this.settings.protectedNamespaces),
      dryRun: verdict,
      changed: changes.length > 0,
      ...shown.diff(changes, judged.unnamedRemovals),
      ...(verdict.warnings?.length ? { warnings: shown.text(verdict.warnings) } : {}),
      ...(violation ? { refusal: shown.refusal(violation) } : {}),
    };
  }

  /** The target as discovery resolves it, or why it cannot be written (the discovery lookup's own failure included). */
  private async resolve(request: WriteRequest): Promise<{ target: ResolvedTarget } | { refusal: WriteRefusal }> {
    const { apiVersion, kind } = request.ref;
    const served = await stepOf(() => this.deps.reader.resolveKind(apiVersion, kind));
    if ('refusal' in served) return served;
    const resolved = resolveTarget(request.ref, served.value ?? undefined);
    return 'target' in resolved ? resolved : { refusal: { reason: 'InvalidTarget', message: resolved.refusal, causes: [] } };
  }
}

const guardRefusal = (r: GuardRefusal | undefined): WriteRefusal | undefined => (r ? fromGuard(r) : undefined);

/** What the write does (a create when the object is absent) and the live object's pins: its resourceVersion, a delete's uid. */
function effectOf(op: ClusterOperation, live: KubeObject | null): Pick<GuardedWriteResult, 'effect' | 'resourceVersion' | 'uid'> {
  const version = live?.metadata.resourceVersion;
  const uid = op.method === 'delete' ? live?.metadata.uid : undefined;
  return {
    effect: op.method === 'delete' ? 'delete' : live === null ? 'create' : 'update',
    ...(typeof version === 'string' && version ? { resourceVersion: version } : {}),
    ...(typeof uid === 'string' && uid ? { uid } : {}),
  };
}
