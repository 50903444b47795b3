import { isDeepStrictEqual } from 'node:util';
import { isMap, isSeq, parseAllDocuments, type Document, type YAMLMap } from 'yaml';
import type { JsonPatchOp, PatchBody, PatchType, ResourceRef } from '../../domain/cluster/kube-types.js';
import type { ManifestEditor } from '../../domain/ports/manifest-editor.js';

type Path = (string | number)[];
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function holds(doc: Document, ref: ResourceRef): boolean {
  const get = (...path: string[]) => doc.getIn(path);
  if (get('apiVersion') !== ref.apiVersion || get('kind') !== ref.kind || get('metadata', 'name') !== ref.name) return false;
  const namespace = get('metadata', 'namespace');
  return namespace === undefined || namespace === null || ref.namespace === undefined || namespace === ref.namespace;
}

/** A scalar set in place keeps the comment beside it; a map or a list is a new node. */
const setIn = (doc: Document, at: Path, value: unknown) => doc.setIn(at, typeof value === 'object' && value !== null ? doc.createNode(value) : value);

/** The patch merge key of a built-in list field (`patchMergeKey` in the Kubernetes types), as the API server reads it. */
function mergeKey(field: string, items: unknown[]): string | undefined {
  if (['containers', 'initContainers', 'ephemeralContainers', 'volumes', 'env', 'imagePullSecrets'].includes(field)) return 'name';
  if (field === 'hostAliases') return 'ip';
  if (field === 'volumeMounts') return 'mountPath';
  if (field === 'volumeDevices') return 'devicePath';
  if (field === 'ports') return items.some((i) => isObject(i) && 'containerPort' in i) ? 'containerPort' : 'port';
  return undefined;
}

const withoutDirectives = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(withoutDirectives)
    : isObject(v)
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([k]) => !k.startsWith('$'))
            .map(([k, x]) => [k, withoutDirectives(x)]),
        )
      : v;

/** RFC 7386 (`strategic` false) or a strategic merge patch on a document, node by node so comments on untouched keys stay. */
function mergeInto(doc: Document, path: Path, patch: Record<string, unknown>, strategic: boolean): void {
  for (const [key, value] of Object.entries(patch)) {
    if (strategic && (key.startsWith('$setElementOrder/') || key === '$retainKeys' || key === '$patch')) continue;
    const at = [...path, key];
    const node = doc.getIn(at, true);
    if (value === null) doc.deleteIn(at);
    else if (isObject(value) && isMap(node)) mergeInto(doc, at, value, strategic);
    else if (strategic && Array.isArray(value) && isSeq(node) && mergeKey(key, [...value, ...(node.toJSON() as unknown[])])) {
      const k = mergeKey(key, [...value, ...(node.toJSON() as unknown[])])!;
      for (const item of value.filter(isObject)) {
        const index = node.items.findIndex((n) => isMap(n) && (n as YAMLMap).get(k) === item[k]);
        if (item.$patch === 'delete') {
          if (index >= 0) node.items.splice(index, 1);
        } else if (index >= 0) mergeInto(doc, [...at, index], item, true);
        else node.items.push(doc.createNode(withoutDirectives(item)));
      }
    } else setIn(doc, at, strategic ? withoutDirectives(value) : value);
  }
}

/** An RFC 6901 pointer as a path of keys and indices (`-` is the end of a list). */
function pointer(doc: Document, p: string): Path {
  if (p === '') return [];
  if (!p.startsWith('/')) throw new Error(`not a JSON pointer: ${p}`);
  const out: Path = [];
  for (const raw of p.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const parent = doc.getIn(out, true);
    out.push(isSeq(parent) ? (seg === '-' ? parent.items.length : Number(seg)) : seg);
  }
  return out;
}

/** RFC 6902 on a document; false when an operation does not apply (a failed `test`, a missing path). */
function jsonPatch(doc: Document, ops: JsonPatchOp[]): boolean {
  for (const op of ops) {
    const at = pointer(doc, op.path);
    const parent = doc.getIn(at.slice(0, -1), true);
    const last = at[at.length - 1];
    const exists = doc.hasIn(at);
    const value = op.op === 'move' || op.op === 'copy' ? (doc.getIn(pointer(doc, op.from ?? ''), true) as { toJSON?: () => unknown })?.toJSON?.() : op.value;
    if (op.op === 'test') {
      const current = doc.getIn(at, true) as { toJSON?: () => unknown } | unknown;
      const json = current && typeof current === 'object' && 'toJSON' in current ? (current as { toJSON(): unknown }).toJSON() : current;
      if (!isDeepStrictEqual(json, op.value)) return false;
      continue;
    }
    if (op.op === 'remove' || op.op === 'replace' || op.op === 'move') {
      if (!exists && op.op !== 'move') return false;
    }
    if (op.op === 'move') doc.deleteIn(pointer(doc, op.from ?? ''));
    if (op.op === 'remove') {
      doc.deleteIn(at);
      continue;
    }
    if ((op.op === 'add' || op.op === 'move' || op.op === 'copy') && isSeq(parent) && typeof last === 'number') {
      parent.items.splice(last, 0, doc.createNode(value));
      continue;
    }
    setIn(doc, at, value);
  }
  return true;
}

/** ManifestEditor on the `yaml` package's Document API (comments and layout kept). */
export class YamlManifestEditor implements ManifestEditor {
  patchObject(text: string, ref: ResourceRef, patch: PatchBody, patchType: PatchType): string | undefined {
    const docs = parseAllDocuments(text);
    if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0)) return undefined;
    const target = docs.find((d) => holds(d, ref));
    if (!target) return undefined;
    if (Array.isArray(patch)) {
      try {
        if (!jsonPatch(target, patch)) return undefined;
      } catch {
        return undefined;
      }
    } else mergeInto(target, [], patch, patchType === 'strategic');
    // each document after the first prints its own `---`
    return docs.map((d) => d.toString()).join('');
  }
}
