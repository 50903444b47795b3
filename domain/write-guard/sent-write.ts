import type { JsonPatchOp, PatchBody, PatchType } from '../cluster/kube-types.js';
import { formatPath, type PathSegment, type SegmentChange } from '../operations/object-diff.js';
import { isJsonObject } from '../json-object.js';
import type { ResolvedTarget } from './resolved-target.js';

/** A write as it is sent to the API server (after svc computed any JSON Patch): what the guard judges besides the objects. */
export interface WriteAsSent {
  verb: 'apply' | 'patch' | 'delete';
  /** For a patch: how the body is read. */
  patchType?: PatchType;
  /** For a patch: the body (an object, or JSON Patch operations when patchType is json). */
  patch?: PatchBody;
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

type Named = (string | { name: string } | '*')[];

/**
 * Diff entries that drop a field (or shorten a list) the write does not name
 * for removal: a null or a `$patch: delete` element in an object patch, a
 * JSON Patch `remove`. An apply names none, and neither does a JSON Patch
 * `replace`: what its value does not repeat is removed unnamed (a replace
 * of `/metadata` without the labels drops the labels).
 */
export function unnamedRemovals(write: WriteAsSent, diff: readonly SegmentChange[]): string[] {
  const named = write.verb === 'patch' ? namedRemovals(write.patch) : [];
  return diff
    .filter((c) => 'from' in c && (!('to' in c) || (Array.isArray(c.from) && Array.isArray(c.to) && c.to.length < c.from.length)))
    .filter((c) => !named.some((n) => prefixes(n, c.segments)))
    .map((c) => formatPath(c.segments));
}

const pointer = (p: string): Named =>
  p
    .split('/')
    .slice(1)
    .map((t) => (/^\d+$/.test(t) ? '*' : t.replace(/~1/g, '/').replace(/~0/g, '~')));

function namedRemovals(patch: PatchBody | undefined): Named[] {
  if (Array.isArray(patch)) return (patch as JsonPatchOp[]).filter((o) => o.op === 'remove').map((o) => pointer(o.path));
  const out: Named[] = [];
  const walk = (v: unknown, at: Named) => {
    if (v === null) return void out.push(at);
    if (Array.isArray(v)) {
      for (const item of v) if (isJsonObject(item) && item.$patch === 'delete') out.push([...at, typeof item.name === 'string' ? { name: item.name } : '*']);
      return;
    }
    if (isJsonObject(v)) for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
  };
  walk(patch, []);
  return out;
}

function prefixes(named: Named, segments: PathSegment[]): boolean {
  if (named.length > segments.length) return false;
  return named.every((n, i) => {
    const s = segments[i];
    if (n === '*') return !('key' in s);
    if (typeof n === 'string') return 'key' in s && s.key === n;
    return 'name' in s && s.name === n.name;
  });
}
