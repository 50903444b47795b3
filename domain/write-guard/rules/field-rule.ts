import type { RiskLevel } from '../../actions/cluster-action.js';
import type { KubeObject } from '../../cluster/kube-types.js';
import { formatPath, type PathSegment } from '../../operations/object-diff.js';
import type { LeafChange } from '../leaf-changes.js';

/** A kind as discovery resolves it: `''` is the core group. */
export interface KindRef {
  group: string;
  kind: string;
}

/** What a rule sees of a changed leaf: the change, its path relative to where the rule applies, and the write around it. */
export interface RuleInput {
  change: LeafChange;
  /** The leaf's path relative to the rule's scope (the object, a pod spec, a container, a template's metadata), list items as `[]`. */
  path: readonly string[];
  /** The same path, readable: `spec.replicas`, `containers[name=web].image`. */
  shown: string;
  /** The kind, for messages. */
  kind: string;
  /** Whether the write creates the object. */
  created: boolean;
  live: KubeObject | null;
  result: KubeObject;
}

/** A rule's judgement of one leaf: the level, and the reason a person reads (left out for low). */
export interface RuleVerdict {
  risk: RiskLevel;
  reason?: string;
}

/**
 * One row of the write guard's table: the kinds it knows (by API group and
 * kind, as discovery resolves them) or a scope found by shape (`pod`:
 * relative to a pod spec; `container`; `pod-metadata`: a pod template's
 * labels and annotations; `any`: every kind), the field paths it claims,
 * what a safe value is, and the level a change gets. A leaf no rule claims
 * stays high.
 */
export interface FieldRule {
  /** A stable name (docs/safe-writes.md, tests). */
  id: string;
  /** Where the table groups it (docs/safe-writes.md). */
  area: string;
  scope: 'object' | 'any' | 'pod' | 'container' | 'pod-metadata';
  /** For scope `object`: the kinds. */
  kinds?: readonly KindRef[];
  /** Patterns: keys separated by dots, `[]` any list item, `{a,b}` either key, `*` any one key, `**` anything below (or nothing). */
  paths: readonly string[];
  /** What a safe value is and the level it gets, in words (the docs table). */
  safe: string;
  /** Whether automatic mode must never write what this rule claims (a sensitive kind). */
  sensitive?: string;
  judge: (input: RuleInput) => RuleVerdict;
}

/** A leaf's path as a rule pattern reads it: keys, and `[]` for a list item. */
export const patternPath = (segments: readonly PathSegment[]): string[] => segments.map((s) => ('key' in s ? s.key : '[]'));

const parsed = new Map<string, string[]>();
function tokens(pattern: string): string[] {
  let t = parsed.get(pattern);
  if (!t) {
    t = pattern.split('.').flatMap((part) => (part.endsWith('[]') ? [part.slice(0, -2), '[]'].filter(Boolean) : [part]));
    parsed.set(pattern, t);
  }
  return t;
}

function matchFrom(p: readonly string[], i: number, path: readonly string[], j: number): boolean {
  if (i === p.length) return j === path.length;
  if (p[i] === '**') return Array.from({ length: path.length - j + 1 }, (_, k) => j + k).some((at) => matchFrom(p, i + 1, path, at));
  if (j === path.length) return false;
  const t = p[i]!;
  const ok = t === '*' ? path[j] !== '[]' : t.startsWith('{') ? t.slice(1, -1).split(',').includes(path[j]!) : t === path[j];
  return ok && matchFrom(p, i + 1, path, j + 1);
}

/** Whether a pattern (`spec.template.**`, `metadata.labels.*`, `spec.ports[].port`) claims a path. */
export const matches = (pattern: string, path: readonly string[]): boolean => matchFrom(tokens(pattern), 0, path, 0);

/** The readable form of a path relative to a scope. */
export const shownPath = (segments: readonly PathSegment[]): string => formatPath([...segments]);

export const verdict = (risk: RiskLevel, reason?: string): RuleVerdict => (reason ? { risk, reason } : { risk });
/** A rule whose every change gets one level. */
export const fixed =
  (risk: RiskLevel, words?: string) =>
  (i: RuleInput): RuleVerdict =>
    verdict(risk, words && risk !== 'low' ? `${i.kind} ${i.shown}: ${words}` : undefined);

/** `core/ConfigMap`, `apps/Deployment`: how a kind reads in the table. */
export const kindLabel = (k: KindRef): string => `${k.group || 'core'}/${k.kind}`;
export const kinds = (group: string, ...names: string[]): KindRef[] => names.map((kind) => ({ group, kind }));

/** Whether a table kind names a discovered one: `*` any kind or group, `*.kyverno.io` any subgroup, `*NetworkPolicy` any kind so ending. */
export function kindMatches(ref: KindRef, group: string, kind: string): boolean {
  const groupOk = ref.group === '*' || ref.group === group || (ref.group.startsWith('*.') && group.endsWith(ref.group.slice(1)));
  const kindOk = ref.kind === '*' || ref.kind === kind || (ref.kind.startsWith('*') && kind.endsWith(ref.kind.slice(1)));
  return groupOk && kindOk;
}

/** The value at `segments` in an object (undefined when absent): what a rule reads around a leaf. */
export function valueAt(o: unknown, segments: readonly PathSegment[]): unknown {
  let at: unknown = o;
  for (const s of segments) {
    if ('key' in s) at = at !== null && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>)[s.key] : undefined;
    else if ('index' in s) at = Array.isArray(at) ? at[s.index] : undefined;
    else at = Array.isArray(at) ? at.find((x) => x !== null && typeof x === 'object' && (x as Record<string, unknown>).name === s.name) : undefined;
    if (at === undefined) return undefined;
  }
  return at;
}
