import type { KubeObject } from '../cluster/kube-types.js';
import { diffSegments } from '../operations/object-diff.js';
import { setAt, valueAt } from '../operations/rollback.js';
import type { ChangeTarget, InverseChange, ObjectState } from './change-entry.js';
import { holdsRedacted, objectFromState } from './object-state.js';

type Obj = Record<string, unknown>;

/** Fields an undo may write: content and labels/annotations; other metadata is the server's, status the controller's. */
function restorableKeys(segments: { key?: string; index?: number; name?: string }[]): string[] | undefined {
  const keys: string[] = [];
  for (const s of segments) {
    if (s.key === undefined) break;
    keys.push(s.key);
  }
  const [first, second] = keys;
  if (!first || first === 'status' || first === 'apiVersion' || first === 'kind') return undefined;
  if (first === 'metadata') return second === 'labels' || second === 'annotations' ? keys.slice(0, 3) : undefined;
  return keys;
}

/**
 * The change that undoes a write, from the object before and after it. Pure.
 * - created (nothing before): delete it;
 * - deleted (nothing after): create it again from the recorded state;
 * - changed: a JSON merge patch putting every changed field back (a change
 *   inside an array restores the array whole, since merge patches replace
 *   arrays; a field that was not there becomes null).
 * null when nothing restorable changed, or when the undo would need values
 * the ledger does not keep (a Secret's data reads `***`).
 */
export function inverseOf(target: ChangeTarget, before: ObjectState | null, after: KubeObject | null): InverseChange | null {
  if (!before && !after) return null;
  if (!before) return { method: 'delete' };
  const previous = objectFromState(target, before);
  if (!after) return holdsRedacted(previous) ? null : { method: 'create', body: previous as unknown as Record<string, unknown> };
  const patch: Obj = {};
  for (const change of diffSegments(previous, after)) {
    const keys = restorableKeys(change.segments as never);
    if (!keys) continue;
    const value = valueAt(previous, keys);
    setAt(patch, keys, value === undefined ? null : value);
  }
  if (!Object.keys(patch).length || holdsRedacted(patch)) return null;
  return { method: 'patch', patchType: 'merge', body: patch };
}
