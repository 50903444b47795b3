import type { KubeObject } from '../cluster/kube-types.js';
import { isJsonObject } from '../json-object.js';

/** One step into an object: a key, an array index, or the array element with that `name`. */
export type PathSegment = { key: string } | { index: number } | { name: string };

/** One field that differs. `from` is absent when the field is new, `to` when it goes away. */
export interface FieldChange {
  /** Readable path: `spec.replicas`, `spec.template.spec.containers[name=web].image`, `metadata.annotations["a.b/c"]`. */
  path: string;
  from?: unknown;
  to?: unknown;
  /** Set when svc flags the change: a field removed that the action does not name. */
  note?: string;
}

export interface SegmentChange {
  segments: PathSegment[];
  from?: unknown;
  to?: unknown;
}

/** Fields the API server or a controller writes: they change on every write and say nothing about the change asked for. */
const NOISE_METADATA = new Set(['resourceVersion', 'uid', 'generation', 'managedFields', 'creationTimestamp', 'selfLink']);
const NOISE_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration', 'deployment.kubernetes.io/revision']);

type Obj = Record<string, unknown>;

/** The object without status and the metadata noise: what a change is about. */
export function significantFields(o: KubeObject | Obj | null | undefined): Obj {
  if (!o) return {};
  const { status: _s, ...rest } = o as Obj;
  const meta = isJsonObject(rest.metadata) ? { ...rest.metadata } : undefined;
  if (meta) {
    for (const k of NOISE_METADATA) delete meta[k];
    if (isJsonObject(meta.annotations)) {
      const kept = Object.fromEntries(Object.entries(meta.annotations).filter(([k]) => !NOISE_ANNOTATIONS.has(k)));
      if (Object.keys(kept).length) meta.annotations = kept;
      else delete meta.annotations;
    }
    rest.metadata = meta;
  }
  return rest;
}

/** Field-level differences between two objects, as segment paths (for building patches). Status and metadata noise are ignored. */
export function diffSegments(live: KubeObject | null | undefined, proposed: KubeObject | null | undefined): SegmentChange[] {
  const out: SegmentChange[] = [];
  walk(significantFields(live), significantFields(proposed), [], out);
  return out;
}

/**
 * Field-level differences between the live object and the proposed one
 * (null: absent), ignoring status and the metadata the server writes
 * (resourceVersion, uid, generation, managedFields, creationTimestamp).
 * Arrays whose elements all carry a unique `name` (containers, ports, env)
 * are matched by name; other arrays by position when their lengths agree,
 * else as a whole. Pure.
 */
export function diffObjects(live: KubeObject | null | undefined, proposed: KubeObject | null | undefined): FieldChange[] {
  return diffSegments(live, proposed).map((c) => ({ path: formatPath(c.segments), ...pick(c) }));
}

const pick = (c: SegmentChange) => ({ ...('from' in c ? { from: c.from } : {}), ...('to' in c ? { to: c.to } : {}) });

function walk(a: unknown, b: unknown, at: PathSegment[], out: SegmentChange[]): void {
  if (equal(a, b)) return;
  if (a === undefined) return void out.push({ segments: at, to: b });
  if (b === undefined) return void out.push({ segments: at, from: a });
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) walk(a[k], b[k], [...at, { key: k }], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const an = byName(a);
    const bn = byName(b);
    if (an && bn) {
      for (const name of [...new Set([...an.keys(), ...bn.keys()])]) walk(an.get(name), bn.get(name), [...at, { name }], out);
      return;
    }
    if (a.length === b.length) {
      a.forEach((v, i) => walk(v, b[i], [...at, { index: i }], out));
      return;
    }
  }
  out.push({ segments: at, from: a, to: b });
}

function byName(items: unknown[]): Map<string, unknown> | undefined {
  const map = new Map<string, unknown>();
  for (const item of items) {
    if (!isJsonObject(item) || typeof item.name !== 'string' || map.has(item.name)) return undefined;
    map.set(item.name, item);
  }
  return map;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && equal(a[k], b[k]));
  }
  return false;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

export function formatPath(segments: PathSegment[]): string {
  let s = '';
  for (const seg of segments) {
    if ('key' in seg) s += IDENT.test(seg.key) ? `${s ? '.' : ''}${seg.key}` : `[${JSON.stringify(seg.key)}]`;
    else if ('index' in seg) s += `[${seg.index}]`;
    else s += `[name=${seg.name}]`;
  }
  return s || '(whole object)';
}
