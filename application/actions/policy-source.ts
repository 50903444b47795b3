import { DomainError } from '../../domain/errors.js';
import type { NamedPolicy } from '../../domain/orgdata/policy-constraint.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import { searchOrgContext } from '../deployment/org-context.js';

/** Where the write paths get the organisation's policies for a request. */
export interface PolicySource {
  /** The stored policies closest to `text` (the issue or intent); none when none are stored or the store cannot be read. */
  forText(text: string): Promise<NamedPolicy[]>;
}

export const NO_POLICIES: PolicySource = { forText: async () => [] };

const MAX_POLICIES = 5;

/** Policies from manageOrgData's `policies` collection, searched by meaning; an unconfigured or failing store gives none (the dry run and the allow-lists still apply). */
export class OrgPolicySource implements PolicySource {
  constructor(
    private readonly store: VectorStore,
    private readonly embedder: Embedder,
  ) {}

  async forText(text: string): Promise<NamedPolicy[]> {
    try {
      return (await searchOrgContext(this.store, this.embedder, text, MAX_POLICIES)).policies;
    } catch (e) {
      if (e instanceof DomainError) return [];
      throw e;
    }
  }
}

const MAX_POLICY_TEXT = 4000;

/** The policies as the model reads them (data, not instructions): description and machine-checked rules. */
export function policiesText(policies: readonly NamedPolicy[]): string | undefined {
  if (policies.length === 0) return undefined;
  return JSON.stringify(policies.map((p) => ({ policy: p.description, rules: p.constraints }))).slice(0, MAX_POLICY_TEXT);
}
