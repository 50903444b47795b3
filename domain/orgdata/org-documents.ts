import { z } from 'zod';
import { policyClustersSchema, type PolicyClusters } from './policy-clusters.js';
import { policyConstraintSchema, type PolicyConstraint } from './policy-constraint.js';

const text = (max: number) => z.string().trim().min(1).max(max);

/** Bounds of a pattern or policy document (also what the OpenAPI document publishes). */
export const DOCUMENT_LIMITS = {
  description: 2000,
  trigger: 200,
  triggers: 20,
  resource: 200,
  resources: 30,
  rationale: 4000,
  createdBy: 200,
  constraints: 50,
} as const;

/**
 * The `document` of a `create`: one shape for patterns and policies, whose
 * per-type rules (suggestedResources for a pattern only, constraints for a
 * policy only) are checked with the dataType (org-data-operations.ts).
 */
export const orgDocumentInput = z.strictObject({
  description: text(DOCUMENT_LIMITS.description).describe('What the pattern recommends, or the rule the policy states, in plain language'),
  triggers: z
    .array(text(DOCUMENT_LIMITS.trigger))
    .min(1)
    .max(DOCUMENT_LIMITS.triggers)
    .describe('Phrases of a deployment intent this document answers (1 to 20, each up to 200 characters)'),
  suggestedResources: z
    .array(text(DOCUMENT_LIMITS.resource))
    .min(1)
    .max(DOCUMENT_LIMITS.resources)
    .optional()
    .describe('Pattern only (required there): the resource kinds the pattern combines, e.g. ["Deployment", "Service", "HorizontalPodAutoscaler"]'),
  rationale: text(DOCUMENT_LIMITS.rationale).describe('Why the organisation wants this'),
  createdBy: text(DOCUMENT_LIMITS.createdBy)
    .optional()
    .describe('Who created it (a person or team); when absent, the caller (their person, else their username)'),
  constraints: z
    .array(policyConstraintSchema)
    .max(DOCUMENT_LIMITS.constraints)
    .optional()
    .describe('Policy only: machine-checkable rules on fields of kinds, checked by the deployment workflow on questions and final manifests'),
  clusters: policyClustersSchema.optional(),
});
export type OrgDocumentInput = z.infer<typeof orgDocumentInput>;

/** A stored pattern, as its payload holds it. */
export interface PatternDocument {
  id: string;
  dataType: 'pattern';
  description: string;
  triggers: string[];
  suggestedResources: string[];
  rationale: string;
  createdBy: string;
  /** ISO 8601 */
  createdAt: string;
}

/** A stored policy, as its payload holds it; `constraints` uses exactly the PolicyConstraint type. */
export interface PolicyDocument {
  id: string;
  dataType: 'policy';
  description: string;
  triggers: string[];
  rationale: string;
  createdBy: string;
  constraints: PolicyConstraint[];
  /** The clusters it applies in; absent: every cluster. */
  clusters?: PolicyClusters;
  createdAt: string;
}

export type OrgDocument = PatternDocument | PolicyDocument;

/** A validated input as the stored document of its type; `createdBy` is the caller's name when the input names no creator. */
export function toOrgDocument(
  dataType: 'pattern' | 'policy',
  input: OrgDocumentInput,
  id: string,
  createdAt: string,
  /** Who calls: the creator when the input names none. */
  caller: string,
): OrgDocument {
  const createdBy = input.createdBy ?? caller.slice(0, DOCUMENT_LIMITS.createdBy);
  const common = { id, description: input.description, triggers: input.triggers, rationale: input.rationale, createdBy, createdAt };
  return dataType === 'pattern'
    ? { ...common, dataType, suggestedResources: input.suggestedResources ?? [] }
    : { ...common, dataType, constraints: input.constraints ?? [], ...(input.clusters ? { clusters: input.clusters } : {}) };
}

/** What is embedded for a pattern or policy: its description and its triggers (the words an intent will use). */
export function documentEmbeddingText(doc: Pick<OrgDocument, 'description' | 'triggers'>): string {
  return [doc.description, ...doc.triggers].join('\n');
}

/** The constraints of a stored policy payload, revalidated (a payload is data read back from a store). */
export function constraintsOf(payload: Record<string, unknown>): PolicyConstraint[] {
  const parsed = z.array(policyConstraintSchema).safeParse(payload.constraints ?? []);
  return parsed.success ? parsed.data : [];
}
