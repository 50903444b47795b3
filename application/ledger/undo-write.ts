import type { ClusterOperation } from '../../domain/actions/cluster-action.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import { ConflictError, ValidationError } from '../../domain/errors.js';
import type { ChangeEntry, InverseChange } from '../../domain/ledger/change-entry.js';
import { objectFromState } from '../../domain/ledger/object-state.js';
import { diffObjects } from '../../domain/operations/object-diff.js';
import type { RefusalReason } from '../../domain/ports/metrics.js';
import { refusalMetric } from '../../domain/write-guard/refusal-metric.js';
import type { WriteRefusal, WriteRequest } from '../guarded-write/write-request.js';

export const entryRef = (e: ChangeEntry): ResourceRef => ({
  apiVersion: e.target.apiVersion,
  kind: e.target.kind,
  name: e.target.name,
  ...(e.target.namespace ? { namespace: e.target.namespace } : {}),
});

/**
 * The undo as the write port is sent it: the inverse is a JSON merge patch
 * whatever the kind (it restores whole values, arrays included, which is
 * what an undo means), a delete of a created object, or a server-side apply
 * of the recorded state re-creating a deleted one; pinned to `resourceVersion`.
 */
function inverseOperation(ref: ResourceRef, inverse: InverseChange, resourceVersion?: string): ClusterOperation {
  const pin = resourceVersion ? { resourceVersion } : {};
  switch (inverse.method) {
    case 'patch':
      return { method: 'patch', ref, patch: inverse.body, patchType: 'merge', ...pin };
    case 'delete':
      return { method: 'delete', ref, ...pin };
    case 'create':
      return { method: 'apply', manifest: inverse.body as unknown as KubeObject };
  }
}

/**
 * The undo of `entry` as a guarded write: checked against the object just
 * read (still as the change left it, unless forced: 409 otherwise) and
 * pinned to that object's version, so a change made between this check and
 * the write is a 409, never overwritten.
 */
export function undoRequest(entry: ChangeEntry, inverse: InverseChange, force: boolean): WriteRequest {
  const ref = entryRef(entry);
  return {
    ref,
    operation: inverseOperation(ref, inverse),
    prepare: (live) => {
      checkUnchanged(entry, inverse, live, force);
      const version = live?.metadata.resourceVersion;
      return { operation: inverseOperation(ref, inverse, typeof version === 'string' ? version : undefined) };
    },
  };
}

/**
 * The refusal of an undo, as the revert answers it: svc's own (the
 * allow-lists, discovery, the image registries, the policies) is 400
 * VALIDATION_ERROR, counted by `count`; the API server's refusal of the dry
 * run is 409 CONFLICT; a failure (the API server or a dependency) is thrown
 * as it is.
 */
export function undoRefusal(entry: ChangeEntry, refusal: WriteRefusal, count: (metric: RefusalReason) => void): Error {
  if (refusal.error) return refusal.error;
  const metric = refusalMetric(refusal.reason);
  if (!metric)
    return new ConflictError(`The API server refuses the undo of ${entry.id}: ${refusal.message}`, { reason: refusal.reason, causes: refusal.causes });
  count(metric);
  return new ValidationError(`svc refuses the undo of ${entry.id}: ${refusal.message}`, { reason: refusal.reason });
}

/** Fields the cluster's controllers set on an object after its create (diff paths): the binder's, the scheduler's, the deployment controller's. */
const CLUSTER_FILLED: readonly RegExp[] = [
  /^spec\.volumeName$/,
  /^spec\.nodeName$/,
  /^metadata\.annotations\["(pv\.kubernetes\.io\/[^"]+|volume\.(beta\.)?kubernetes\.io\/[^"]+|deployment\.kubernetes\.io\/revision)"\]$/,
];
const filledByTheCluster = (path: string): boolean => CLUSTER_FILLED.some((re) => re.test(path));

/** The object must still be as the change left it, unless forced (a deleted object cannot be re-created over a live one, forced or not). */
function checkUnchanged(entry: ChangeEntry, inverse: InverseChange, live: KubeObject | null, force: boolean): void {
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
