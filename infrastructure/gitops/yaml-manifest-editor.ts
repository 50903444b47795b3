import { isMap, parseAllDocuments, type Document } from 'yaml';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import type { ManifestEditor } from '../../domain/ports/manifest-editor.js';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function holds(doc: Document, ref: ResourceRef): boolean {
  const get = (...path: string[]) => doc.getIn(path);
  if (get('apiVersion') !== ref.apiVersion || get('kind') !== ref.kind || get('metadata', 'name') !== ref.name) return false;
  const namespace = get('metadata', 'namespace');
  return namespace === undefined || namespace === null || ref.namespace === undefined || namespace === ref.namespace;
}

/** RFC 7386 on a YAML document: maps merge node by node (so comments on untouched keys stay), everything else is set whole. */
function mergeInto(doc: Document, path: string[], patch: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(patch)) {
    const at = [...path, key];
    if (value === null) doc.deleteIn(at);
    else if (isObject(value) && isMap(doc.getIn(at, true))) mergeInto(doc, at, value);
    // a scalar set in place keeps the comment beside it; a map or list is a new node
    else doc.setIn(at, typeof value === 'object' ? doc.createNode(value) : value);
  }
}

/** ManifestEditor on the `yaml` package's Document API (comments and layout kept). */
export class YamlManifestEditor implements ManifestEditor {
  patchObject(text: string, ref: ResourceRef, patch: Record<string, unknown>): string | undefined {
    const docs = parseAllDocuments(text);
    if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0)) return undefined;
    const target = docs.find((d) => holds(d, ref));
    if (!target) return undefined;
    mergeInto(target, [], patch);
    // each document after the first prints its own `---`
    return docs.map((d) => d.toString()).join('');
  }
}
