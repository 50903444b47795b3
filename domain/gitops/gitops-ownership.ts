import type { KubeObject, ResourceRef } from '../cluster/kube-types.js';
import { asJsonObject } from '../json-object.js';

export type GitopsController = 'argocd' | 'flux';

/** Where the object's desired state lives in git, when the owner says so. */
export interface GitopsSource {
  repoURL: string;
  /** Folder inside the repository ('' is the root). */
  path: string;
  /** Branch, tag or commit the controller follows; undefined: the repository's default. */
  revision?: string;
}

/** What svc marks an action with when a GitOps controller manages its object. */
export interface GitopsMark {
  controller: GitopsController;
  /** The owning object: `Application argocd/shop`, `Kustomization flux-system/apps`, `HelmRelease flux-system/web`. */
  owner: string;
  source?: GitopsSource;
  /** Why svc cannot commit a change of this object to git (no git source it can tell, a source it does not push to); absent when it can. */
  noGitDelivery?: string;
}

/** The owning object to read, as the labels and annotations name it. */
export interface OwnerClaim {
  controller: GitopsController;
  ref: ResourceRef;
}

/** Argo CD's default tracking label (`application.instanceLabelKey`) and its annotation tracking. */
export const ARGO_INSTANCE_LABEL = 'app.kubernetes.io/instance';
export const ARGO_TRACKING_ANNOTATION = 'argocd.argoproj.io/tracking-id';
export const ARGO_NAMESPACE = 'argocd';
const FLUX_KUSTOMIZE = 'kustomize.toolkit.fluxcd.io';
const FLUX_HELM = 'helm.toolkit.fluxcd.io';

/**
 * Who claims an object, from its labels and annotations only (no I/O):
 * Flux's `kustomize.toolkit.fluxcd.io/name`+`/namespace` or
 * `helm.toolkit.fluxcd.io/name`+`/namespace` labels; Argo CD's tracking
 * annotation (`<app>:<group>/<kind>:<namespace>/<name>`, the app possibly
 * `<namespace>_<app>`) or its instance label. The instance label is also set
 * by Helm charts for other reasons, so a claim is confirmed only when the
 * owning object exists (`gitopsOwner` reads it).
 */
export function ownerClaim(object: KubeObject): OwnerClaim | undefined {
  const labels = object.metadata.labels ?? {};
  const annotations = object.metadata.annotations ?? {};
  for (const [group, kind, apiVersion] of [
    [FLUX_KUSTOMIZE, 'Kustomization', `${FLUX_KUSTOMIZE}/v1`],
    [FLUX_HELM, 'HelmRelease', `${FLUX_HELM}/v2`],
  ] as const) {
    const name = labels[`${group}/name`];
    if (name) return { controller: 'flux', ref: { apiVersion, kind, name, namespace: labels[`${group}/namespace`] ?? object.metadata.namespace } };
  }
  const tracking = annotations[ARGO_TRACKING_ANNOTATION];
  const app = tracking ? tracking.split(':')[0] : labels[ARGO_INSTANCE_LABEL];
  if (!app) return undefined;
  const [namespace, name] = app.includes('_') ? app.split('_', 2) : [ARGO_NAMESPACE, app];
  return { controller: 'argocd', ref: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', name, namespace } };
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** An Argo CD Application's git source (`spec.source`, or the first `spec.sources` entry with a path); a Helm chart source has none. */
export function argoSource(application: KubeObject): GitopsSource | undefined {
  const spec = asJsonObject(application.spec);
  const sources = [asJsonObject(spec.source), ...(Array.isArray(spec.sources) ? spec.sources.map(asJsonObject) : [])];
  const git = sources.find((s) => str(s.repoURL) && str(s.path) !== undefined && !s.chart);
  if (!git) return undefined;
  const revision = str(git.targetRevision);
  return { repoURL: str(git.repoURL)!, path: str(git.path)!.replace(/^\.?\/+|\/+$/g, ''), revision: revision === 'HEAD' ? undefined : revision };
}

/** A Flux Kustomization's source reference (`spec.sourceRef`, a GitRepository) and its path. */
export function fluxSourceRef(kustomization: KubeObject): { ref: ResourceRef; path: string } | undefined {
  const spec = asJsonObject(kustomization.spec);
  const source = asJsonObject(spec.sourceRef);
  if (source.kind !== 'GitRepository' || !str(source.name)) return undefined;
  return {
    ref: {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'GitRepository',
      name: str(source.name)!,
      namespace: str(source.namespace) ?? kustomization.metadata.namespace,
    },
    path: (str(spec.path) ?? '').replace(/^\.?\/+|\/+$/g, ''),
  };
}

/** A Flux GitRepository's URL and branch. */
export function fluxGitRepository(repo: KubeObject, path: string): GitopsSource | undefined {
  const spec = asJsonObject(repo.spec);
  const url = str(spec.url);
  if (!url) return undefined;
  return { repoURL: url, path, revision: str(asJsonObject(spec.ref).branch) };
}
