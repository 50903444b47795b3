import type { PatchBody, PatchType, ResourceRef } from '../cluster/kube-types.js';

/**
 * Edits Kubernetes objects inside YAML files as people wrote them: comments,
 * key order, quoting and the other documents of a multi-document file are
 * kept as far as the YAML library allows.
 */
export interface ManifestEditor {
  /**
   * `text` with a patch applied to the document that holds the object `ref`
   * (apiVersion, kind and name equal; the namespace equal when the document
   * names one, since a GitOps controller may set it), read as the API server
   * reads `patchType`: `merge` (RFC 7386: null deletes, objects merge, lists
   * are replaced), `strategic` (lists with a patch merge key, such as
   * containers by name, merge element by element), `json` (RFC 6902
   * operations). Undefined when no document of `text` holds the object, `text`
   * is not YAML, or a JSON Patch operation does not apply.
   */
  patchObject(text: string, ref: ResourceRef, patch: PatchBody, patchType: PatchType): string | undefined;
}
