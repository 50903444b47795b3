import type { PatchBody, PatchType } from './kube-types.js';

/**
 * API groups whose kinds are compiled into kube-apiserver (the core group is
 * ''). Only these accept strategic merge patch; custom resources answer 415.
 */
export const BUILT_IN_API_GROUPS: ReadonlySet<string> = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/** The API group of an apiVersion (`apps/v1` -> `apps`, `v1` -> ''). */
export const apiGroup = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');

export const isBuiltInApiVersion = (apiVersion: string): boolean => BUILT_IN_API_GROUPS.has(apiGroup(apiVersion));

/**
 * How svc sends a patch: JSON Patch operations as `json`; an object as a
 * strategic merge patch for built-in kinds, so that a patch naming one
 * container's image keeps that container's env, volume mounts and probes and
 * the other containers; as a JSON merge patch for custom resources, which do
 * not support strategic merge. A model's object patch to a custom resource
 * never reaches the writer as such: the preview turns it into JSON Patch
 * operations first (domain/actions/custom-resource-patch.ts).
 */
export function patchTypeFor(apiVersion: string, patch: PatchBody): PatchType {
  if (Array.isArray(patch)) return 'json';
  return isBuiltInApiVersion(apiVersion) ? 'strategic' : 'merge';
}
