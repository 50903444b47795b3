import type { KubeObject, PatchBody } from './kube-types.js';

/**
 * The bodies of the writes svc sends, preconditions included: one function
 * each, used by the Kubernetes adapter to send them and by the ledger to
 * record them, so the change an entry records is the change the API server
 * received. A `resourceVersion` pin is the server's precondition: the write
 * is refused (409) when the object changed since it was read.
 */

/** A server-side apply manifest, with the pin in its metadata. */
export function applyBody(manifest: KubeObject, resourceVersion?: string): KubeObject {
  return resourceVersion ? { ...manifest, metadata: { ...manifest.metadata, resourceVersion } } : manifest;
}

/** A strategic merge, JSON merge or JSON patch, with the pin set in the patched object (a JSON Patch gets a replace op for it). */
export function patchBody(patch: PatchBody, resourceVersion?: string): PatchBody {
  if (!resourceVersion) return patch;
  return Array.isArray(patch)
    ? [...patch, { op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion }]
    : { ...patch, metadata: { ...(patch.metadata as object | undefined), resourceVersion } };
}

/** DeleteOptions with the pins (resourceVersion, uid) as preconditions, or no body. */
export function deleteBody(resourceVersion?: string, uid?: string): Record<string, unknown> | undefined {
  if (!resourceVersion && !uid) return undefined;
  return { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { ...(uid ? { uid } : {}), ...(resourceVersion ? { resourceVersion } : {}) } };
}

/**
 * A create's body (POST to the collection): the manifest without the
 * server-owned `resourceVersion` and `uid`. Its precondition is the object's
 * absence: the API server answers 409 AlreadyExists, never overwrites.
 */
export function createBody(manifest: KubeObject): KubeObject {
  const { resourceVersion: _rv, uid: _uid, ...metadata } = manifest.metadata;
  return { ...manifest, metadata: metadata as KubeObject['metadata'] };
}
