import { jsonPatchBetween, mergePatched } from '../cluster/json-patch-between.js';
import type { JsonPatchOp, KubeObject } from '../cluster/kube-types.js';
import { isBuiltInApiVersion } from '../cluster/patch-type.js';
import type { ClusterAction } from './cluster-action.js';

/**
 * The JSON Patch (RFC 6902) svc sends instead of an object patch to a
 * custom resource: custom resources take no strategic merge patch, and a
 * JSON merge patch is re-evaluated against whatever the object is when it
 * lands. The operations are computed here, from the object read at preview
 * to the object merged with the model's patch (RFC 7386: a null removes a
 * key; a list the model sends replaces the list, so an element it left out
 * becomes a `remove` the diff flags and the risk floor raises to high).
 * They touch only the fields the patch names; the write is pinned to the
 * previewed resourceVersion, so they apply to exactly the object they were
 * computed from. undefined when the action is not such a patch or there is
 * no live object to compute from.
 */
export function customResourceOperations(action: ClusterAction, live: KubeObject | null): JsonPatchOp[] | undefined {
  if (action.type !== 'patch' || Array.isArray(action.patch) || isBuiltInApiVersion(action.target.apiVersion) || !live) return undefined;
  return jsonPatchBetween(live, mergePatched(live, action.patch));
}

/** The action as svc sends it: its object patch replaced by the computed operations, when there are some. */
export function withOperations(action: ClusterAction, operations: readonly JsonPatchOp[] | undefined): ClusterAction {
  return operations && action.type === 'patch' ? { ...action, patch: operations.map((o) => ({ ...o })) } : action;
}
