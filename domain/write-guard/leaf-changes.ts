import type { KubeObject } from '../cluster/kube-types.js';
import { asJsonObject, isJsonObject } from '../json-object.js';
import { significantFields, type PathSegment } from '../operations/object-diff.js';
import { LAST_APPLIED } from './rules/metadata-rules.js';

/** One leaf field the write changes: set (no `from`), removed (no `to`) or changed. An empty object or list is a leaf too. */
export interface LeafChange {
  segments: PathSegment[];
  /** The path as pathKey writes it: a region's key starts it exactly when the region holds the leaf. */
  key: string;
  from?: unknown;
  to?: unknown;
}

/** One segment as a key part: a JSON string can hold no unescaped `"`, so a part ends where the next `/` starts. */
const part = (s: PathSegment): string => ('key' in s ? `/${JSON.stringify(s.key)}` : 'index' in s ? `/#${s.index}` : `/@${JSON.stringify(s.name)}`);

/** A path as one string, so that a path lies under another exactly when it starts with the other's key followed by `/` (within pathKey's encoding). */
export const pathKey = (segments: readonly PathSegment[]): string => segments.map(part).join('');

/** Whether the path of `key` is `prefix` or lies under it. */
export const under = (key: string, prefix: string): boolean => key.startsWith(prefix) && (key.length === prefix.length || key[prefix.length] === '/');

/**
 * How the guard steps into a list: by each item's `name` when every item
 * is an object with a unique one (containers, env, volumes, ports), so an
 * item keeps its path when others move; else by position.
 */
export function itemSegments(list: readonly unknown[]): PathSegment[] {
  const names = list.map((x) => (isJsonObject(x) && typeof x.name === 'string' ? x.name : undefined));
  const unique = names.every((n): n is string => n !== undefined) && new Set(names).size === names.length;
  return list.map((_, i) => (unique ? { name: names[i]! } : { index: i }));
}

type Leaves = Map<string, { segments: PathSegment[]; value: unknown }>;

function flatten(v: unknown, at: PathSegment[], key: string, out: Leaves): void {
  const step = (x: unknown, s: PathSegment) => flatten(x, [...at, s], key + part(s), out);
  if (isJsonObject(v) && Object.keys(v).length) {
    for (const [k, x] of Object.entries(v)) step(x, { key: k });
    return;
  }
  if (Array.isArray(v) && v.length) {
    const steps = itemSegments(v);
    v.forEach((x, i) => step(x, steps[i]!));
    return;
  }
  out.set(key, { segments: at, value: v });
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Every leaf the write changes: the object as the API server would store it
 * (`result`) against the live one (null: a create, so every set leaf), both
 * without status and the metadata the server writes (significantFields).
 * What the guard judges field by field: no rule, no lower risk.
 */
export function changedLeaves(live: KubeObject | null, result: KubeObject): LeafChange[] {
  const before: Leaves = new Map();
  const after: Leaves = new Map();
  if (live) flatten(significantFields(live), [], '', before);
  flatten(significantFields(result), [], '', after);
  const out: LeafChange[] = [];
  for (const [key, a] of after) {
    const b = before.get(key);
    if (!b) out.push({ segments: a.segments, key, to: a.value });
    else if (!sameJson(a.value, b.value)) out.push({ segments: a.segments, key, from: b.value, to: a.value });
  }
  for (const [key, b] of before) if (!after.has(key)) out.push({ segments: b.segments, key, from: b.value });
  // significantFields leaves the last-applied annotation out of diffs; what the next kubectl apply acts on is still a change
  const applied = (o: KubeObject | null) => asJsonObject(asJsonObject(o?.metadata).annotations)[LAST_APPLIED];
  if (!sameJson(applied(live), applied(result)))
    out.push({ ...atPath([{ key: 'metadata' }, { key: 'annotations' }, { key: LAST_APPLIED }]), from: applied(live), to: applied(result) });
  return out;
}

const atPath = (segments: PathSegment[]) => ({ segments, key: pathKey(segments) });

/** Whether two path segments step to the same place: the same key, position or named item. */
export const sameSegment = (a: PathSegment, b: PathSegment): boolean =>
  'key' in a ? 'key' in b && a.key === b.key : 'index' in a ? 'index' in b && a.index === b.index : 'name' in b && a.name === b.name;
