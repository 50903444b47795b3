/**
 * The patch formats of the Kubernetes API stand-in, with kube-apiserver's semantics:
 *
 * - RFC 7386 JSON merge patch: null deletes a key, objects merge, arrays are replaced whole.
 * - Strategic merge patch (built-in kinds only): like merge patch, but the lists
 *   the API declares with a patch merge key merge element by element on that
 *   key (containers, initContainers, volumes, env, imagePullSecrets by `name`,
 *   volumeMounts by `mountPath`, container ports by `containerPort`, Service
 *   ports by `port`); an element `{"$patch": "delete", <key>: ...}` removes one;
 *   `$setElementOrder/<list>` and `$retainKeys` directives are accepted and dropped.
 * - RFC 6902 JSON Patch: add, remove, replace, move, copy, test; array indexes
 *   as RFC 6901 reads them (digits, `-` to append with add); `test` compares JSON
 *   values; a failed op is an error string (the server answers 422) and the
 *   whole patch applies or none of it.
 */
import { canonical, type Obj } from './kube-cluster.js';

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** RFC 7386 JSON merge patch. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

/** The patch merge key of a list field, as the built-in types declare it (`patchMergeKey`). */
function mergeKey(field: string, items: unknown[]): string | undefined {
  if (['containers', 'initContainers', 'ephemeralContainers', 'volumes', 'env', 'imagePullSecrets', 'hostAliases'].includes(field))
    return field === 'hostAliases' ? 'ip' : 'name';
  if (field === 'volumeMounts' || field === 'volumeDevices') return field === 'volumeMounts' ? 'mountPath' : 'devicePath';
  if (field === 'ports') return items.some((i) => isObj(i) && 'containerPort' in i) ? 'containerPort' : 'port';
  return undefined;
}

/** Strategic merge patch of one object. */
export function applyStrategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return stripDirectives(rest);
  }
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$setElementOrder/') || k === '$retainKeys' || k === '$patch') continue;
    if (v === null) delete out[k];
    else if (Array.isArray(v) && Array.isArray(out[k]) && mergeKey(k, [...v, ...out[k]])) out[k] = mergeList(out[k], v, mergeKey(k, [...v, ...out[k]])!);
    else if (Array.isArray(v)) out[k] = v.filter((i) => !(isObj(i) && i.$patch === 'delete')).map(stripDirectives);
    else out[k] = applyStrategicMergePatch(out[k], v);
  }
  return out;
}

function mergeList(live: unknown[], patch: unknown[], key: string): unknown[] {
  const out = [...live];
  for (const item of patch) {
    if (!isObj(item)) continue;
    const at = out.findIndex((l) => isObj(l) && l[key] === item[key]);
    if (item.$patch === 'delete') {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) out[at] = applyStrategicMergePatch(out[at], item);
    else out.push(stripDirectives(item));
  }
  return out;
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObj(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !k.startsWith('$'))
      .map(([k, x]) => [k, stripDirectives(x)]),
  );
}

/** RFC 6902 JSON Patch on a copy of `doc`: the result, or why an op does not apply. */
export function applyJsonPatch(doc: Obj, ops: unknown[]): { result: Obj } | { error: string } {
  let out: unknown = structuredClone(doc);
  for (const raw of ops) {
    if (!isObj(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') return { error: 'invalid JSON Patch: every op needs "op" and "path"' };
    const op = raw as { op: string; path: string; from?: string; value?: unknown };
    try {
      if (op.op === 'add') out = put(out, op.path, op.value, 'add');
      else if (op.op === 'replace') out = put(out, op.path, op.value, 'replace');
      else if (op.op === 'remove') out = remove(out, op.path);
      else if (op.op === 'test') {
        // compared as JSON values (key order does not matter), as evanphx/json-patch does
        if (!has(out, op.path) || canonical(get(out, op.path)) !== canonical(op.value)) return { error: `testing value ${op.path} failed` };
      } else if (op.op === 'move' || op.op === 'copy') {
        const value = structuredClone(get(out, op.from ?? ''));
        if (op.op === 'move') out = remove(out, op.from ?? '');
        out = put(out, op.path, value, 'add');
      } else return { error: `Unexpected kind: ${op.op}` };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }
  return { result: out as Obj };
}

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** An array index token: digits without a leading zero (RFC 6901); `-` and anything else is not an existing element. */
const indexOf = (t: string): number => (/^(0|[1-9][0-9]*)$/.test(t) ? Number(t) : NaN);

function has(doc: unknown, pointer: string): boolean {
  try {
    get(doc, pointer);
    return true;
  } catch {
    return false;
  }
}

function get(doc: unknown, pointer: string, path = tokens(pointer)): unknown {
  let at: unknown = doc;
  for (const t of path) {
    if (Array.isArray(at)) at = at[indexOf(t)];
    else if (isObj(at) && Object.hasOwn(at, t)) at = at[t];
    else throw new Error(`doc is missing path: ${pointer}`);
    if (at === undefined) throw new Error(`doc is missing path: ${pointer}`);
  }
  return at;
}

function put(doc: unknown, pointer: string, value: unknown, how: 'add' | 'replace'): unknown {
  const path = tokens(pointer);
  if (path.length === 0) return value;
  const parent = get(doc, pointer, path.slice(0, -1));
  const last = path.at(-1)!;
  if (Array.isArray(parent)) {
    const i = last === '-' && how === 'add' ? parent.length : indexOf(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length || (how === 'replace' && i >= parent.length))
      throw new Error(`${how} operation does not apply: doc is missing path: ${pointer}`);
    if (how === 'add') parent.splice(i, 0, value);
    else parent[i] = value;
  } else if (isObj(parent)) {
    if (how === 'replace' && !Object.hasOwn(parent, last)) throw new Error(`replace operation does not apply: doc is missing key: ${pointer}`);
    parent[last] = value;
  } else throw new Error(`${how} operation does not apply: doc is missing path: ${pointer}`);
  return doc;
}

function remove(doc: unknown, pointer: string): unknown {
  const path = tokens(pointer);
  const parent = get(doc, pointer, path.slice(0, -1));
  const last = path.at(-1)!;
  if (Array.isArray(parent) && indexOf(last) < parent.length) parent.splice(indexOf(last), 1);
  else if (isObj(parent) && Object.hasOwn(parent, last)) delete parent[last];
  else throw new Error(`remove operation does not apply: doc is missing path: ${pointer}`);
  return doc;
}
