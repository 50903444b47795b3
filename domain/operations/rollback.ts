import { kubectlEquivalent, type ClusterAction } from '../actions/cluster-action.js';
import type { KubeObject, ResourceRef } from '../cluster/kube-types.js';
import type { PathSegment, SegmentChange } from './object-diff.js';
import { isJsonObject } from '../json-object.js';

type Obj = Record<string, unknown>;

export interface RollbackAdvice {
  /** A patch that puts the changed spec fields back to their values before the change; sent as a strategic merge patch (the kinds that roll out are built-in). */
  patch: Record<string, unknown>;
  /** The same patch as a kubectl command, for people. */
  kubectlPatch: string;
  /** `kubectl rollout undo ...`: the controller's own previous revision (it may differ from the patch when others changed the object too). */
  kubectlUndo: string;
  /** The patch as an action, ready to be proposed again. */
  action: ClusterAction;
}

/** Only these fields are put back: metadata other than labels and annotations cannot change, status is the controller's. */
function restorable(segments: PathSegment[]): boolean {
  const [first, second] = segments;
  if (!first || !('key' in first)) return false;
  if (first.key === 'spec') return true;
  return first.key === 'metadata' && !!second && 'key' in second && (second.key === 'labels' || second.key === 'annotations');
}

/** The value at a key path (undefined where it stops). */
export function valueAt(o: unknown, keys: string[]): unknown {
  let v: unknown = o;
  for (const k of keys) v = isJsonObject(v) ? v[k] : undefined;
  return v;
}

/** Sets a value at a key path, creating objects on the way. */
export function setAt(patch: Obj, keys: string[], value: unknown): void {
  let node = patch;
  for (const k of keys.slice(0, -1)) {
    if (!isJsonObject(node[k])) node[k] = {};
    node = node[k] as Obj;
  }
  node[keys[keys.length - 1]] = value;
}

/**
 * The patch that undoes `changes` (a diff of `before` against what was
 * applied): a change inside a list (a container's image) carries the whole
 * list as it was, which a strategic merge patch merges back element by
 * element on its key (so a container the failed change added stays); a
 * field that did not exist before is removed (null). Pure; undefined when
 * nothing restorable changed.
 */
export function rollbackPatch(before: KubeObject, changes: SegmentChange[]): Record<string, unknown> | undefined {
  const patch: Obj = {};
  for (const change of changes) {
    if (!restorable(change.segments)) continue;
    const keys: string[] = [];
    for (const seg of change.segments) {
      if (!('key' in seg)) break;
      keys.push(seg.key);
    }
    const previous = keys.length === change.segments.length ? change.from : valueAt(before, keys);
    setAt(patch, keys, previous === undefined ? null : previous);
  }
  return Object.keys(patch).length ? patch : undefined;
}

/** What to run to roll back a change of `target` that did not roll out; undefined when the diff holds nothing to put back. */
export function rollbackAdvice(target: ResourceRef, before: KubeObject, changes: SegmentChange[]): RollbackAdvice | undefined {
  const patch = rollbackPatch(before, changes);
  if (!patch) return undefined;
  const action: ClusterAction = {
    type: 'patch',
    target,
    patch,
    description: `Put the changed fields of ${target.kind} ${target.name} back to their values before the operation`,
    risk: 'medium',
    rationale: 'The change did not roll out; restoring the previous spec rolls the workload back to what was running.',
  };
  const ns = target.namespace ? ` -n ${target.namespace}` : '';
  return { patch, kubectlPatch: kubectlEquivalent(action), kubectlUndo: `kubectl rollout undo ${target.kind.toLowerCase()}/${target.name}${ns}`, action };
}
