import type { JsonPatchOp, KubeObject, PatchBody, PatchType } from '../cluster/kube-types.js';
import { formatPath, type PathSegment, type SegmentChange } from '../operations/object-diff.js';
import { isJsonObject } from '../json-object.js';
import { sameSegment } from './leaf-changes.js';
import type { ResolvedTarget } from './resolved-target.js';

/** A write as it is sent to the API server (after svc computed any JSON Patch): what the guard judges besides the objects. */
export interface WriteAsSent {
  verb: 'apply' | 'create' | 'patch' | 'delete';
  /** For a patch: how the body is read. */
  patchType?: PatchType;
  /** For a patch: the body (an object, or JSON Patch operations when patchType is json). */
  patch?: PatchBody;
  /**
   * When svc computed the sent patch from the action's own (a custom
   * resource's object patch, sent as JSON Patch): the action's patch. What
   * it names for removal is what the action names: a `remove` svc computed
   * from a list the action replaced names nothing.
   */
  asked?: { patchType: PatchType; patch: PatchBody };
}

/**
 * Why a patch is refused before any request: a JSON Patch `copy` or `move`
 * (they carry a value from one field to another, e.g. a Secret's
 * `/data/password` into an annotation anyone may read; svc never sends
 * them), or a `test` against a Secret's data (an oracle for its values).
 */
export function patchRefusal(target: ResolvedTarget, write: WriteAsSent): string | undefined {
  if (write.verb !== 'patch' || !Array.isArray(write.patch)) return undefined;
  const carried = write.patch.filter((o) => o.op === 'copy' || o.op === 'move');
  if (carried.length)
    return `JSON Patch ${carried.map((o) => `${o.op} from ${String(o.from)} to ${o.path}`).join(', ')}: svc refuses copy and move operations (they can carry a Secret's value into a readable field); name the value instead`;
  const secret = target.group === '' && target.kind === 'Secret';
  const probe = write.patch.find((o) => o.op === 'test' && secret && /^\/(data|stringData)(\/|$)/.test(o.path));
  if (probe) return `JSON Patch test of ${probe.path} on a Secret: svc refuses tests against Secret data (they reveal its values)`;
  return undefined;
}

/**
 * What a write names for removal, resolved against the live object to the
 * diff's own segments: `exact` paths (a field, or a list item by its `name`
 * or position), and `shortened` lists (their path, and how many items the
 * write removes from them: a list whose items carry no unique name is
 * diffed as a whole, so a removal inside it is allowed only up to that count).
 */
interface NamedRemovals {
  exact: PathSegment[][];
  shortened: Map<string, number>;
}

/**
 * Diff entries that drop a field (or shorten a list) the write does not name
 * for removal: a null or a `$patch: delete` element in an object patch (also
 * inside list items, merged by their key), a `$deleteFromPrimitiveList`
 * directive, a JSON Patch `remove` (its list indices resolved against the
 * live object, operation by operation, to the item they remove). An apply
 * names none, and neither does a JSON Patch `replace` or an object patch's
 * list (a JSON merge patch list, `$patch: replace`, `$retainKeys`): what
 * their value does not repeat is removed unnamed (a replace of `/metadata`
 * without the labels drops the labels). A removal named in one list item
 * never covers another item.
 */
export function unnamedRemovals(write: WriteAsSent, diff: readonly SegmentChange[], live: KubeObject | null = null): string[] {
  const named: NamedRemovals =
    write.verb === 'patch' ? namedRemovals(write.asked ? { verb: 'patch', ...write.asked } : write, live) : { exact: [], shortened: new Map() };
  return diff
    .filter((c) => 'from' in c && (!('to' in c) || (Array.isArray(c.from) && Array.isArray(c.to) && c.to.length < c.from.length)))
    .filter((c) => !covered(named, c))
    .map((c) => formatPath(c.segments));
}

function covered(named: NamedRemovals, c: SegmentChange): boolean {
  if (named.exact.some((n) => n.length <= c.segments.length && n.every((s, i) => sameSegment(s, c.segments[i]!)))) return true;
  if (!('to' in c) || !Array.isArray(c.from) || !Array.isArray(c.to)) return false;
  const allowed = named.shortened.get(formatPath(c.segments)) ?? 0;
  return allowed > 0 && c.from.length - c.to.length <= allowed;
}

/** The items of a list by a unique `name` each, as the diff matches them; undefined when the list is diffed by position. */
function namesOf(list: unknown[]): string[] | undefined {
  const names = list.map((x) => (isJsonObject(x) && typeof x.name === 'string' ? x.name : undefined));
  return names.every((n): n is string => n !== undefined) && new Set(names).size === names.length ? names : undefined;
}

type Shorten = (at: PathSegment[], by: number) => void;

function namedRemovals(write: WriteAsSent, live: KubeObject | null): NamedRemovals {
  const out: NamedRemovals = { exact: [], shortened: new Map() };
  const shorten: Shorten = (at, by) => out.shortened.set(formatPath(at), (out.shortened.get(formatPath(at)) ?? 0) + by);
  if (Array.isArray(write.patch)) jsonPatchRemovals(write.patch, live, out, shorten);
  else if (write.patch) objectPatchRemovals(write.patch, write.patchType !== 'merge', live, out, shorten);
  return out;
}

/** A strategic merge (`strategic`) or JSON merge patch: nulls, and for a strategic one `$patch: delete` items (matched to the live item by their scalar fields, the merge key among them) and `$deleteFromPrimitiveList`. */
function objectPatchRemovals(patch: PatchBody, strategic: boolean, live: KubeObject | null, out: NamedRemovals, shorten: Shorten): void {
  const walk = (v: unknown, at: PathSegment[], was: unknown): void => {
    if (v === null) return void out.exact.push(at);
    if (Array.isArray(v)) {
      if (strategic && Array.isArray(was)) listRemovals(v, at, was);
      return;
    }
    if (!isJsonObject(v)) return;
    // $patch: replace and $retainKeys drop what they do not repeat: nothing below is named
    if (v.$patch === 'replace' || '$retainKeys' in v) return;
    const before = isJsonObject(was) ? was : {};
    for (const [k, x] of Object.entries(v)) {
      const primitive = /^\$deleteFromPrimitiveList\/(.+)$/.exec(k);
      if (primitive && strategic && Array.isArray(x)) shorten([...at, { key: primitive[1]! }], x.length);
      if (!k.startsWith('$')) walk(x, [...at, { key: k }], before[k]);
    }
  };
  const listRemovals = (items: unknown[], at: PathSegment[], was: unknown[]) => {
    const names = namesOf(was);
    for (const item of items) {
      if (!isJsonObject(item)) continue;
      const keys = Object.entries(item).filter(([k, x]) => !k.startsWith('$') && (typeof x === 'string' || typeof x === 'number'));
      const matches = keys.length ? was.filter((w) => isJsonObject(w) && keys.every(([k, x]) => w[k] === x)) : [];
      if (matches.length !== 1) continue; // not one live item: nothing is named
      const i = was.indexOf(matches[0]);
      if (item.$patch === 'delete') {
        if (names) out.exact.push([...at, { name: names[i]! }]);
        else shorten(at, 1);
      } else if (names) walk(item, [...at, { name: names[i]! }], matches[0]);
    }
  };
  walk(patch, [], live);
}

/** JSON Patch: each op's path resolved against the object as the earlier ops left it (a copy of the live one). */
function jsonPatchRemovals(ops: readonly JsonPatchOp[], live: KubeObject | null, out: NamedRemovals, shorten: Shorten): void {
  const doc: unknown = structuredClone(live ?? {});
  for (const op of ops) {
    const tokens = op.path
      .split('/')
      .slice(1)
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = tokens.pop();
    if (last === undefined) return;
    const segments: PathSegment[] = [];
    let parent: unknown = doc;
    for (const t of tokens) {
      const step = stepInto(parent, t);
      if (!step) return; // the API server refuses the patch: nothing further is simulated
      segments.push(step.segment);
      parent = step.value;
    }
    if (op.op === 'test') continue;
    if (!applyOp(op, last, parent, segments, out, shorten)) return;
  }
}

/** One add, remove or replace applied to `parent` (recording a removal); false when the op cannot be applied (the server refuses it). */
function applyOp(op: JsonPatchOp, last: string, parent: unknown, segments: PathSegment[], out: NamedRemovals, shorten: Shorten): boolean {
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : /^\d+$/.test(last) ? Number(last) : -1;
    if (i < 0 || i > parent.length || (op.op !== 'add' && i === parent.length)) return false;
    if (op.op === 'remove') {
      const names = namesOf(parent);
      if (names) out.exact.push([...segments, { name: names[i]! }]);
      else shorten(segments, 1);
      parent.splice(i, 1);
    } else if (op.op === 'replace') parent[i] = structuredClone(op.value);
    else if (op.op === 'add') parent.splice(i, 0, structuredClone(op.value));
    else return false;
    return true;
  }
  if (!isJsonObject(parent)) return false;
  if (op.op === 'remove') {
    if (!(last in parent)) return false;
    out.exact.push([...segments, { key: last }]);
    delete parent[last];
  } else if (op.op === 'add' || op.op === 'replace') parent[last] = structuredClone(op.value);
  else return false;
  return true;
}

function stepInto(at: unknown, token: string): { segment: PathSegment; value: unknown } | undefined {
  if (Array.isArray(at)) {
    if (!/^\d+$/.test(token) || Number(token) >= at.length) return undefined;
    const i = Number(token);
    const names = namesOf(at);
    return { segment: names ? { name: names[i]! } : { index: i }, value: at[i] };
  }
  if (isJsonObject(at) && token in at) return { segment: { key: token }, value: at[token] };
  return undefined;
}
