import type { ResourceRef } from '../cluster/kube-types.js';

/**
 * Edits Kubernetes objects inside YAML files as people wrote them: comments,
 * key order, quoting and the other documents of a multi-document file are
 * kept as far as the YAML library allows.
 */
export interface ManifestEditor {
  /**
   * `text` with a JSON merge patch (RFC 7386: null deletes a key, objects
   * merge, anything else replaces) applied to the document that holds the
   * object `ref` (apiVersion, kind and name equal; the namespace equal when
   * the document names one, since a GitOps controller may set it). Undefined
   * when no document of `text` holds it, or `text` is not YAML.
   */
  patchObject(text: string, ref: ResourceRef, patch: Record<string, unknown>): string | undefined;
}
