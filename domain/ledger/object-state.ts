import type { KubeObject, ResourceRef } from '../cluster/kube-types.js';
import { REDACTED } from '../security/scrub-credentials.js';
import type { ChangeTarget, ObjectState } from './change-entry.js';
import { isJsonObject } from '../json-object.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** Top-level fields that are not the object's content: identity, and what the server or a controller writes. */
const NOT_CONTENT = new Set(['apiVersion', 'kind', 'metadata', 'status', 'spec']);

type Obj = Record<string, unknown>;

/** Secret values and the last-applied annotation (which repeats them) as `***`, at any depth of a copy. */
export function redactObject(kind: string, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((op) => redactJsonPatchOp(kind, op));
  if (!isJsonObject(value)) return value;
  const out: Obj = { ...value };
  if (kind === 'Secret')
    for (const f of ['data', 'stringData']) if (isJsonObject(out[f])) out[f] = Object.fromEntries(Object.keys(out[f]).map((k) => [k, REDACTED]));
  if (isJsonObject(out.metadata) && isJsonObject(out.metadata.annotations) && LAST_APPLIED in out.metadata.annotations) {
    out.metadata = { ...out.metadata, annotations: { ...out.metadata.annotations, [LAST_APPLIED]: REDACTED } };
  }
  return out;
}

const SECRET_PATH = /^\/(data|stringData)(\/|$)/;
const LAST_APPLIED_PATH = /^\/metadata\/annotations(\/kubectl\.kubernetes\.io~1last-applied-configuration)?$/;

/** One op of a JSON Patch (RFC 6902): a value written into a Secret's data, or the last-applied annotation, as `***`. */
function redactJsonPatchOp(kind: string, op: unknown): unknown {
  if (!isJsonObject(op) || typeof op.path !== 'string' || !('value' in op)) return op;
  if (kind === 'Secret' && SECRET_PATH.test(op.path))
    return { ...op, value: isJsonObject(op.value) ? Object.fromEntries(Object.keys(op.value).map((k) => [k, REDACTED])) : REDACTED };
  if (LAST_APPLIED_PATH.test(op.path)) {
    if (op.path.endsWith('configuration')) return { ...op, value: REDACTED };
    if (isJsonObject(op.value) && LAST_APPLIED in op.value) return { ...op, value: { ...op.value, [LAST_APPLIED]: REDACTED } };
  }
  return op;
}

/** The object as the ledger keeps it: content, labels, annotations, resourceVersion; null when absent. Redacted. */
export function objectState(o: KubeObject | null | undefined): ObjectState | null {
  if (!o) return null;
  const r = redactObject(o.kind, o) as KubeObject;
  const other = Object.fromEntries(Object.entries(r).filter(([k]) => !NOT_CONTENT.has(k)));
  return {
    ...(r.spec !== undefined ? { spec: r.spec } : {}),
    ...(Object.keys(other).length ? { other } : {}),
    ...(r.metadata.labels ? { labels: r.metadata.labels } : {}),
    ...(r.metadata.annotations ? { annotations: r.metadata.annotations } : {}),
    ...(typeof r.metadata.resourceVersion === 'string' ? { resourceVersion: r.metadata.resourceVersion } : {}),
  };
}

/** A recorded state as an object again (for diffs and re-creation), without the server's resourceVersion. */
export function objectFromState(target: ChangeTarget, s: ObjectState): KubeObject {
  return {
    apiVersion: target.apiVersion,
    kind: target.kind,
    metadata: {
      name: target.name,
      ...(target.namespace ? { namespace: target.namespace } : {}),
      ...(s.labels ? { labels: s.labels } : {}),
      ...(s.annotations ? { annotations: s.annotations } : {}),
    },
    ...(s.spec !== undefined ? { spec: s.spec } : {}),
    ...(s.other ?? {}),
  };
}

export function targetOf(ref: ResourceRef): ChangeTarget {
  return { apiVersion: ref.apiVersion, kind: ref.kind, ...(ref.namespace ? { namespace: ref.namespace } : {}), name: ref.name };
}

/** Whether a value still holds a redacted placeholder somewhere (an undo built from it would write `***`). */
export function holdsRedacted(value: unknown): boolean {
  if (value === REDACTED) return true;
  if (Array.isArray(value)) return value.some(holdsRedacted);
  return isJsonObject(value) && Object.values(value).some(holdsRedacted);
}
