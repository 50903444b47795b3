import { z } from 'zod';
import { DependencyError } from '../../domain/errors.js';
import { compiles, isConstraintPath, type NamedPolicy, type PolicyConstraint } from '../../domain/orgdata/policy-constraint.js';
import { policyClustersSchema } from '../../domain/orgdata/policy-clusters.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { StoredPoint, VectorStore } from '../../domain/ports/vector-store.js';
import { currentCluster } from '../cluster/current-cluster.js';
import { clusterFilter } from '../orgdata/cluster-partition.js';

/**
 * The one place that reads manageOrgData's documents (domain/orgdata/ on the
 * orgdata branch) out of the `capabilities`, `patterns` and `policies`
 * collections. Payloads are read leniently: what does not parse is skipped,
 * so a later change of their shape touches this file only.
 */

export interface PatternHit {
  id: string;
  description: string;
  suggestedResources: string[];
  rationale?: string;
}
export type PolicyHit = NamedPolicy;
export interface CapabilityHit {
  id: string;
  kind: string;
  apiVersion?: string;
  description: string;
  capabilities: string[];
}
export interface OrgContext {
  capabilities: CapabilityHit[];
  patterns: PatternHit[];
  policies: PolicyHit[];
  /** What a person should know (empty or unreadable collections). */
  notes: string[];
}

const text = z.string().min(1);
const strings = z.array(z.string()).catch([]);

const patternPayload = z.object({ description: text, suggestedResources: strings, rationale: z.string().optional().catch(undefined) });
// a limit that does not parse is dropped, and the policy then applies in every cluster: never fewer checks for a damaged payload
const policyPayload = z.object({ description: text, constraints: z.array(z.unknown()).catch([]), clusters: policyClustersSchema.optional().catch(undefined) });
const capabilityPayload = z.object({
  resource: z.object({ kind: text, apiVersion: z.string().optional() }),
  description: z.string().catch(''),
  capabilities: strings,
});

const constraintPayload = z.object({
  kind: z.string().regex(/^(\*|[A-Z][A-Za-z0-9]{0,62})$/),
  field: z.string().refine(isConstraintPath),
  allowedValues: z
    .array(z.union([z.string(), z.number(), z.boolean()]))
    .max(100)
    .optional(),
  pattern: z.string().max(200).refine(compiles).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  required: z.boolean().optional(),
  message: z.string().max(500).optional(),
});

const truncate = (s: string, n = 500) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** A stored point of the `policies` collection as the write paths check it; undefined when its payload is not a policy. */
export function policyOf(p: StoredPoint): NamedPolicy | undefined {
  const r = policyPayload.safeParse(p.payload);
  if (!r.success) return undefined;
  const constraints = r.data.constraints
    .map((c) => constraintPayload.safeParse(c))
    .filter((c) => c.success)
    .map((c) => c.data as PolicyConstraint);
  return { id: p.id, description: truncate(r.data.description), constraints, ...(r.data.clusters ? { clusters: r.data.clusters } : {}) };
}

function parseAll<T>(points: StoredPoint[], read: (p: StoredPoint) => T | undefined): T[] {
  return points.map(read).filter((x): x is T => x !== undefined);
}

/** How many more policies are searched when some may be limited to other clusters, to find `limit` that apply. */
const POLICY_SEARCH_FACTOR = 4;

export const ORG_COLLECTIONS = { capabilities: 'capabilities', patterns: 'patterns', policies: 'policies' } as const;

/**
 * Searches the three collections with the intent's embedding; an absent,
 * empty or unreadable one is noted, not fatal. While svc serves several
 * clusters the call runs in its cluster's scope and only that cluster's
 * capabilities are searched (patterns and policies are shared); with svc's
 * one cluster there is no scope and every capability is searched, as always.
 */
export async function searchOrgContext(
  store: VectorStore,
  embedder: Embedder,
  intent: string,
  limit = 5,
  /** Which policies apply to the current work (a policy limited to other clusters does not): the search looks further to find `limit` of them. */
  policyApplies?: (policy: NamedPolicy) => boolean,
): Promise<OrgContext> {
  const notes: string[] = [];
  const capabilityFilter = clusterFilter(currentCluster());
  const hits: Record<keyof typeof ORG_COLLECTIONS, StoredPoint[]> = { capabilities: [], patterns: [], policies: [] };
  let vector: number[] | undefined;
  for (const name of Object.values(ORG_COLLECTIONS)) {
    try {
      const info = await store.describeCollection(name);
      if (!info || info.count === 0) continue;
      const dimension = await embedder.dimension();
      if (info.dimension !== dimension) {
        notes.push(`The ${name} collection was built with another embedding model (dimension ${info.dimension}, now ${dimension}); it was not used.`);
        continue;
      }
      vector ??= (await embedder.embed([intent]))[0];
      const filter = name === ORG_COLLECTIONS.capabilities ? capabilityFilter : undefined;
      const wanted = name === ORG_COLLECTIONS.policies && policyApplies ? limit * POLICY_SEARCH_FACTOR : limit;
      hits[name] = await store.search(name, { vector, limit: wanted, ...(filter ? { filter } : {}) });
    } catch (e) {
      if (!(e instanceof DependencyError)) throw e;
      notes.push(`The ${name} collection could not be searched (${e.message}); it was not used.`);
    }
  }
  const patterns = parseAll(hits.patterns, (p) => {
    const r = patternPayload.safeParse(p.payload);
    return r.success
      ? {
          id: p.id,
          description: truncate(r.data.description),
          suggestedResources: r.data.suggestedResources.slice(0, 30),
          ...(r.data.rationale ? { rationale: truncate(r.data.rationale) } : {}),
        }
      : undefined;
  });
  const policies = parseAll(hits.policies, policyOf)
    .filter((p) => policyApplies?.(p) ?? true)
    .slice(0, limit);
  const capabilities = parseAll(hits.capabilities, (p) => {
    const r = capabilityPayload.safeParse(p.payload);
    return r.success
      ? {
          id: p.id,
          kind: r.data.resource.kind,
          ...(r.data.resource.apiVersion ? { apiVersion: r.data.resource.apiVersion } : {}),
          description: truncate(r.data.description),
          capabilities: r.data.capabilities.slice(0, 20),
        }
      : undefined;
  });
  if (capabilities.length + patterns.length + policies.length === 0) {
    notes.push("No capabilities, patterns or policies are stored (manageOrgData adds them): these solutions come from the cluster's API discovery alone.");
  }
  return { capabilities, patterns, policies, notes };
}
