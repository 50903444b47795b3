/**
 * Field ownership, as kube-apiserver's structured-merge-diff keeps it in
 * `metadata.managedFields` (FieldsV1: `{"f:spec":{"f:replicas":{}}}`, list
 * items with a `name` as `k:{"name":"web"}`, other lists atomic):
 *
 * - `serverSideApply`: the applier's fields merged into the object (maps
 *   field by field, named list items by name, other lists replaced); the
 *   fields it applied before and no longer applies are removed unless someone
 *   else owns them. A field another manager owns with a different value is a
 *   conflict: 409 naming each field (`.spec.replicas`,
 *   `.spec.template.spec.containers[name="web"].image`) and its manager,
 *   unless `force`, which takes the fields over.
 * - `updateOwnership`: an ordinary write (create, patch, update, scale) makes
 *   its manager (operation Update) the owner of every field it changed, taken
 *   from the others.
 *
 * Only spec-like fields count: apiVersion, kind, status and the server's
 * metadata are nobody's; labels and annotations are.
 */
import { canonical, type Obj } from './kube-cluster.js';

type Path = string[];
type Entry = Obj & { paths: Path[] };

const SKIP_TOP = new Set(['apiVersion', 'kind', 'status', 'metadata']);
const OWNED_METADATA = ['labels', 'annotations'];
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const named = (v: unknown): v is Obj[] => Array.isArray(v) && v.length > 0 && v.every((x) => isObj(x) && typeof x.name === 'string');
const itemKey = (name: string) => `k:${JSON.stringify({ name })}`;

/** Every leaf field of an object as FieldsV1 key paths. */
export function leafPaths(obj: Obj): Path[] {
  const out: Path[] = [];
  const walk = (v: unknown, path: Path) => {
    if (isObj(v) && Object.keys(v).length > 0) for (const [k, x] of Object.entries(v)) walk(x, [...path, `f:${k}`]);
    else if (named(v)) for (const item of v) walk(item, [...path, itemKey(item.name)]);
    else out.push(path);
  };
  for (const [k, v] of Object.entries(obj)) if (!SKIP_TOP.has(k)) walk(v, [`f:${k}`]);
  for (const k of OWNED_METADATA) if (isObj(obj.metadata?.[k])) walk(obj.metadata[k], ['f:metadata', `f:${k}`]);
  return out;
}

export function toFieldsV1(paths: Path[]): Obj {
  const root: Obj = {};
  for (const p of paths) {
    let node = root;
    for (const k of p) {
      node[k] ??= {};
      node = node[k];
      if (k.startsWith('k:')) node['.'] ??= {};
    }
  }
  return root;
}

export function fromFieldsV1(f: Obj | undefined): Path[] {
  const out: Path[] = [];
  const walk = (node: Obj, path: Path) => {
    const keys = Object.keys(node).filter((k) => k !== '.');
    if (keys.length === 0 && path.length) out.push(path);
    for (const k of keys) walk(node[k], [...path, k]);
  };
  walk(f ?? {}, []);
  return out;
}

function valueAt(obj: unknown, path: Path): unknown {
  let v = obj;
  for (const k of path) {
    if (k.startsWith('f:')) v = isObj(v) ? v[k.slice(2)] : undefined;
    else {
      const name = (JSON.parse(k.slice(2)) as { name: string }).name;
      v = Array.isArray(v) ? v.find((x) => isObj(x) && x.name === name) : undefined;
    }
    if (v === undefined) return undefined;
  }
  return v;
}

function deleteAt(obj: Obj, path: Path): void {
  const parent = valueAt(obj, path.slice(0, -1));
  const last = path.at(-1)!;
  if (last.startsWith('f:') && isObj(parent)) delete parent[last.slice(2)];
  else if (Array.isArray(parent)) {
    const name = (JSON.parse(last.slice(2)) as { name: string }).name;
    const i = parent.findIndex((x) => isObj(x) && x.name === name);
    if (i >= 0) parent.splice(i, 1);
  }
}

/** `.spec.template.spec.containers[name="web"].image`, as the conflict message names a field. */
export function fieldText(path: Path): string {
  return path.map((k) => (k.startsWith('f:') ? `.${k.slice(2)}` : `[name=${JSON.stringify((JSON.parse(k.slice(2)) as { name: string }).name)}]`)).join('');
}

/** Applied onto live: maps field by field, named list items by name, anything else replaced. */
function merge(live: unknown, applied: unknown): unknown {
  if (isObj(live) && isObj(applied)) {
    const out: Obj = { ...live };
    for (const [k, v] of Object.entries(applied)) out[k] = merge(live[k], v);
    return out;
  }
  if (named(live) && named(applied)) {
    const out = live.map((item) => {
      const over = applied.find((a) => a.name === item.name);
      return over ? merge(item, over) : item;
    });
    for (const a of applied) if (!live.some((item) => item.name === a.name)) out.push(a);
    return out;
  }
  return structuredClone(applied);
}

const keyOf = (p: Path) => JSON.stringify(p);
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

export interface ApplyResult {
  merged?: Obj;
  managedFields?: Obj[];
  /** Per manager and its apiVersion, the fields in conflict. */
  conflicts?: { manager: string; apiVersion: string; fields: string[] }[];
}

export function serverSideApply(existing: Obj | undefined, applied: Obj, manager: string, apiVersion: string, force: boolean, now: string): ApplyResult {
  const entries: Entry[] = ((existing?.metadata?.managedFields ?? []) as Obj[]).map((m) => ({ ...m, paths: fromFieldsV1(m.fieldsV1) }));
  const mine = (m: Obj) => m.manager === manager && m.operation === 'Apply';
  const wanted = leafPaths(applied);
  const wantedKeys = new Set(wanted.map(keyOf));
  const conflicts: NonNullable<ApplyResult['conflicts']> = [];
  for (const m of entries.filter((e) => !mine(e))) {
    const clash = m.paths.filter((p) => wantedKeys.has(keyOf(p)) && !same(valueAt(existing, p), valueAt(applied, p)));
    if (clash.length === 0) continue;
    if (force) m.paths = m.paths.filter((p) => !clash.some((c) => keyOf(c) === keyOf(p)));
    else conflicts.push({ manager: m.manager, apiVersion: m.apiVersion, fields: clash.map(fieldText) });
  }
  if (conflicts.length) return { conflicts };
  const result = structuredClone(existing ?? {}) as Obj;
  const ownedByOthers = new Set(entries.filter((e) => !mine(e)).flatMap((e) => e.paths.map(keyOf)));
  for (const p of entries.filter(mine).flatMap((e) => e.paths)) if (!wantedKeys.has(keyOf(p)) && !ownedByOthers.has(keyOf(p))) deleteAt(result, p);
  const merged = merge(result, applied) as Obj;
  const managedFields = [
    ...entries.filter((e) => !mine(e) && e.paths.length > 0).map(({ paths, ...m }) => ({ ...m, fieldsV1: toFieldsV1(paths) })),
    { manager, operation: 'Apply', apiVersion, time: now, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(wanted) },
  ];
  return { merged, managedFields };
}

/** The managedFields after an ordinary write by `manager`: it owns what it changed (or everything it created), taken from the others. */
export function updateOwnership(before: Obj | undefined, after: Obj, manager: string, apiVersion: string, now: string, subresource?: string): Obj[] {
  const entries: Entry[] = ((before?.metadata?.managedFields ?? []) as Obj[]).map((m) => ({ ...m, paths: fromFieldsV1(m.fieldsV1) }));
  const changed = leafPaths(after).filter((p) => !before || !same(valueAt(before, p), valueAt(after, p)));
  const changedKeys = new Set(changed.map(keyOf));
  const isMine = (m: Obj) => m.manager === manager && m.operation === 'Update' && m.subresource === subresource;
  const previous = entries.find(isMine)?.paths ?? [];
  const stillThere = previous.filter((p) => valueAt(after, p) !== undefined && !changedKeys.has(keyOf(p)));
  const others = entries
    .filter((m) => !isMine(m))
    .map((m) => ({ ...m, paths: m.paths.filter((p) => !changedKeys.has(keyOf(p)) && valueAt(after, p) !== undefined) }))
    .filter((m) => m.paths.length > 0);
  const own = [...stillThere, ...changed];
  return [
    ...others.map(({ paths, ...m }) => ({ ...m, fieldsV1: toFieldsV1(paths) })),
    ...(own.length
      ? [{ manager, operation: 'Update', apiVersion, time: now, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(own), ...(subresource ? { subresource } : {}) }]
      : []),
  ];
}

/** kube-apiserver's words for apply conflicts. */
export function conflictMessage(conflicts: NonNullable<ApplyResult['conflicts']>): string {
  const n = conflicts.reduce((k, c) => k + c.fields.length, 0);
  const parts = conflicts.map((c) =>
    c.fields.length === 1
      ? `conflict with ${JSON.stringify(c.manager)} using ${c.apiVersion}: ${c.fields[0]}`
      : `conflicts with ${JSON.stringify(c.manager)} using ${c.apiVersion}:\n${c.fields.map((f) => `- ${f}`).join('\n')}`,
  );
  return `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${parts.join('\n')}`;
}
