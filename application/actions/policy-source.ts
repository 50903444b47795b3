import { DependencyError, DomainError } from '../../domain/errors.js';
import type { NamedPolicy } from '../../domain/orgdata/policy-constraint.js';
import { policyAppliesIn, type ClusterIdentity } from '../../domain/orgdata/policy-clusters.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import { ORG_COLLECTIONS, policyOf, searchOrgContext } from '../deployment/org-context.js';

/** Every stored policy, or why they could not all be read. */
export interface StoredPolicies {
  policies: NamedPolicy[];
  /**
   * Set when the policies could not all be read (the store failed, or holds
   * more than svc checks): then no write a policy could concern may run,
   * since svc cannot say it breaks none.
   */
  unreadable?: string;
}

/** Where the write paths get the organisation's policies. */
export interface PolicySource {
  /** The stored policies that apply in the current work's cluster closest to `text` (the issue or intent), as context for the model only; none when none are stored or the store cannot be read. */
  forText(text: string): Promise<NamedPolicy[]>;
  /**
   * Every stored policy that applies in the current work's cluster, whatever
   * a search would return: what each write is checked against (preview,
   * execute, deployManifests, revert, each cluster of a rollout). Never throws
   * for a failing store: says so in `unreadable`.
   */
  stored(): Promise<StoredPolicies>;
}

export const NO_POLICIES: PolicySource = { forText: async () => [], stored: async () => ({ policies: [] }) };

const MAX_POLICIES = 5;
/** The most policies a write is checked against; a store holding more refuses writes rather than check some. */
export const MAX_STORED_POLICIES = 1000;
const PAGE = 250;

/**
 * The cluster the current work is for, as a policy's limit sees it (its name
 * and labels); undefined when svc serves one cluster or the work is for none,
 * and then every policy applies.
 */
export type PolicyCluster = () => ClusterIdentity | undefined;

/**
 * Policies from manageOrgData's `policies` collection: searched by meaning for
 * the model, listed whole for the checks; with a fleet, only those that apply
 * in the current work's cluster (policy-clusters.ts).
 */
export class OrgPolicySource implements PolicySource {
  constructor(
    private readonly store: VectorStore,
    private readonly embedder: Embedder,
    private readonly cluster: PolicyCluster = () => undefined,
  ) {}

  /** Whether `policy` applies in the current work's cluster. */
  readonly applies = (policy: NamedPolicy): boolean => policyAppliesIn(policy.clusters, this.cluster());

  async forText(text: string): Promise<NamedPolicy[]> {
    try {
      return (await searchOrgContext(this.store, this.embedder, text, MAX_POLICIES, this.applies)).policies;
    } catch (e) {
      if (e instanceof DomainError) return [];
      throw e;
    }
  }

  async stored(): Promise<StoredPolicies> {
    const stored: NamedPolicy[] = [];
    // every stored policy counts towards the bound, whichever cluster it applies in
    const policies = () => stored.filter(this.applies);
    let cursor: string | undefined;
    try {
      do {
        const page = await this.store.list(ORG_COLLECTIONS.policies, { limit: PAGE, ...(cursor ? { cursor } : {}) });
        for (const p of page.points) {
          const policy = policyOf(p);
          if (policy) stored.push(policy);
        }
        cursor = page.next;
        if (cursor && stored.length >= MAX_STORED_POLICIES)
          return { policies: policies(), unreadable: `more than ${MAX_STORED_POLICIES} policies are stored; svc checks at most ${MAX_STORED_POLICIES}` };
      } while (cursor);
    } catch (e) {
      if (!(e instanceof DependencyError)) throw e;
      return { policies: policies(), unreadable: `the policies could not be read (${e.message})` };
    }
    return { policies: policies() };
  }
}

const MAX_POLICY_TEXT = 4000;

/** The policies as the model reads them (data, not instructions): description and machine-checked rules. */
export function policiesText(policies: readonly NamedPolicy[]): string | undefined {
  if (policies.length === 0) return undefined;
  return JSON.stringify(policies.map((p) => ({ policy: p.description, rules: p.constraints }))).slice(0, MAX_POLICY_TEXT);
}
