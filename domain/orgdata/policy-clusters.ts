import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { CLUSTER_NAME, LABEL_KEY, LABEL_VALUE, MAX_CLUSTERS, matchesSelector } from '../fleet/cluster-profile.js';

/**
 * The clusters a policy is limited to (its `clusters` field): the clusters
 * named in `names`, and those whose labels carry every label of `selector`.
 * A policy without a limit applies in every cluster.
 */
export interface PolicyClusters {
  names?: string[];
  selector?: Record<string, string>;
}

/** A cluster as a policy's limit sees it: its name and labels (SVC_CLUSTERS_FILE). */
export interface ClusterIdentity {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

const MAX_SELECTOR_LABELS = 20;

/** A policy's `clusters` as a caller sends it: at least one name or one label, each in its own syntax. */
export const policyClustersSchema = z
  .strictObject({
    names: z
      .array(z.string().regex(CLUSTER_NAME, 'a cluster name (a kubeconfig context name)'))
      .min(1)
      .max(MAX_CLUSTERS)
      .optional()
      .describe('The clusters (names svc serves, as SVC_CLUSTERS gives them) the policy applies in'),
    selector: z
      .record(z.string().regex(LABEL_KEY, 'a label key'), z.string().regex(LABEL_VALUE, 'a label value'))
      .refine((s) => Object.keys(s).length >= 1 && Object.keys(s).length <= MAX_SELECTOR_LABELS, `1 to ${MAX_SELECTOR_LABELS} labels`)
      .optional()
      .describe('The policy applies in every cluster whose labels (SVC_CLUSTERS_FILE) carry all of these'),
  })
  .refine((c) => c.names !== undefined || c.selector !== undefined, { message: 'clusters needs names or a selector (leave clusters out for every cluster)' })
  .describe(
    'Policy only: the clusters the policy applies in (a cluster named in names, or whose labels match selector); without it the policy applies in every cluster. Needs SVC_CLUSTERS',
  ) satisfies z.ZodType<PolicyClusters>;

/**
 * Whether a policy limited to `limit` applies to work in `cluster`. No limit:
 * everywhere. Work whose cluster svc cannot name (svc serves one cluster, or
 * the work is outside any cluster's scope) is held to every policy, limited
 * or not: a limit only ever lets a write through where svc knows the policy
 * does not apply.
 */
export function policyAppliesIn(limit: PolicyClusters | undefined, cluster: ClusterIdentity | undefined): boolean {
  if (limit === undefined || cluster === undefined) return true;
  if (limit.names?.includes(cluster.name)) return true;
  return limit.selector !== undefined && matchesSelector(cluster.labels, limit.selector);
}

/**
 * Refuses (ValidationError, before anything is stored) a limit that cannot
 * mean what its writer thinks: any limit while svc serves one cluster
 * (`clusters` undefined: it has no name or labels to match, so the limit
 * would silently mean everywhere), a name svc does not serve (names are
 * matched exactly, case included, as kubeconfig contexts are), a selector
 * no cluster matches (a policy that applies nowhere). The messages name the
 * choices.
 */
export function checkPolicyClusters(limit: PolicyClusters | undefined, clusters: readonly ClusterIdentity[] | undefined): void {
  if (limit === undefined) return;
  const field = 'document.clusters';
  if (clusters === undefined)
    throw new ValidationError(
      'svc serves one cluster (SVC_CLUSTERS is not set): a policy cannot be limited to clusters; leave clusters out and it applies there',
      [{ field, message: 'only with SVC_CLUSTERS' }],
    );
  const served = clusters.map((c) => c.name);
  const unknown = (limit.names ?? []).filter((n) => !served.includes(n));
  if (unknown.length)
    throw new ValidationError(
      `${unknown.map((n) => JSON.stringify(n)).join(', ')} ${unknown.length > 1 ? 'are not clusters' : 'is not a cluster'} svc serves (one of ${served.join(', ')})`,
      [{ field: `${field}.names`, message: `must each be one of ${served.join(', ')}` }],
    );
  const selector = limit.selector;
  if (selector !== undefined && !clusters.some((c) => matchesSelector(c.labels, selector)))
    throw new ValidationError(
      `no cluster matches selector ${JSON.stringify(selector)}: the policy would apply nowhere (clusters: ${clusters.map((c) => `${c.name} ${JSON.stringify(c.labels)}`).join(', ')})`,
      [{ field: `${field}.selector`, message: 'matches no cluster' }],
    );
}
