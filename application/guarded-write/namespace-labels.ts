import { DomainError } from '../../domain/errors.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { ResolvedTarget } from '../../domain/write-guard/resolved-target.js';

/**
 * The labels of the live Namespace a target is in, for the guard (the Pod
 * Security Standards level it enforces, `pod-security.kubernetes.io/enforce`).
 * undefined for a cluster-scoped target, or when the Namespace cannot be
 * read (absent, the caller or svc may not read Namespaces: a 403 is a
 * DependencyError or, impersonated, a ForbiddenError; or the read failed):
 * the guard then judges at SVC_POD_SECURITY_LEVEL.
 */
export async function namespaceLabelsOf(reader: ClusterReader, target: ResolvedTarget): Promise<Readonly<Record<string, string>> | undefined> {
  if (!target.namespace) return undefined;
  try {
    const ns = await reader.get({ apiVersion: 'v1', kind: 'Namespace', name: target.namespace });
    const labels = ns?.metadata.labels;
    if (!labels || typeof labels !== 'object') return undefined;
    return Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch (e) {
    if (e instanceof DomainError) return undefined;
    throw e;
  }
}
