import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import { argoSource, fluxGitRepository, fluxSourceRef, ownerClaim, type GitopsMark } from '../../domain/gitops/gitops-ownership.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';

/** A read that may fail (a kind the cluster does not serve, RBAC): the answer is then "unknown", never a failed proposal. */
async function tryGet(reader: ClusterReader, ref: ResourceRef): Promise<KubeObject | null> {
  try {
    return await reader.get(ref);
  } catch {
    return null;
  }
}

const named = (o: { kind: string; name: string; namespace?: string }) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;

/**
 * Whether a GitOps controller manages the object, read from the cluster: its
 * labels and annotations name the owner, and the owner (an Argo CD
 * Application, a Flux Kustomization or HelmRelease) says where its source is.
 * An Argo CD instance label without an Application is not taken as ownership
 * (Helm charts set the same label). Undefined when nothing manages it.
 */
export async function gitopsMark(reader: ClusterReader, ref: ResourceRef): Promise<GitopsMark | undefined> {
  const object = await tryGet(reader, ref);
  const claim = object && ownerClaim(object);
  if (!claim) return undefined;
  const owner = await tryGet(reader, claim.ref);
  const mark: GitopsMark = { controller: claim.controller, owner: named(claim.ref) };
  if (!owner) return claim.controller === 'flux' ? mark : undefined;
  if (claim.controller === 'argocd') {
    const source = argoSource(owner);
    return source ? { ...mark, source } : mark;
  }
  const sourceRef = claim.ref.kind === 'Kustomization' ? fluxSourceRef(owner) : undefined;
  const repo = sourceRef && (await tryGet(reader, sourceRef.ref));
  const source = repo && sourceRef ? fluxGitRepository(repo, sourceRef.path) : undefined;
  return source ? { ...mark, source } : mark;
}

/** The mark of each action's object, in the actions' order (undefined where none). */
export async function gitopsMarks(reader: ClusterReader, targets: readonly ResourceRef[]): Promise<(GitopsMark | undefined)[]> {
  return Promise.all(targets.map((t) => gitopsMark(reader, t)));
}
