import { z } from 'zod';
import type { PolicyClusters } from './policy-clusters.js';

/** A scalar a constraint can allow. */
export type ConstraintValue = string | number | boolean;

/**
 * A machine-checkable rule a policy may carry: one field of one kind.
 * The deployment workflow turns it into validation on the configuration
 * questions it touches, and checks it again on the final manifests.
 */
export interface PolicyConstraint {
  /** The kind it applies to (`Deployment`), or `*` for every kind. */
  kind: string;
  /**
   * Dotted path into the object; `[]` walks every element of an array:
   * `spec.replicas`, `spec.template.spec.containers[].image`, `metadata.labels.team`.
   */
  field: string;
  allowedValues?: ConstraintValue[];
  /** A regular expression the (string) value must match in full. */
  pattern?: string;
  minimum?: number;
  maximum?: number;
  /** The field must be present. */
  required?: boolean;
  /** Shown when the rule is broken. */
  message?: string;
}

export interface ConstraintViolation {
  object: string;
  field: string;
  problem: string;
}

const PATH_PART = /^[A-Za-z0-9_.\-/]+(\[\])?$/;

/** Whether `field` is a path this module can walk (validated before a constraint is stored). */
export function isConstraintPath(field: string): boolean {
  return field.length > 0 && field.length <= 300 && field.split('.').every((p) => p !== '' && PATH_PART.test(p));
}

/** Values at `field` in `object`; `[]` fans out over arrays. Absent paths give no values. */
export function valuesAt(object: unknown, field: string): unknown[] {
  let current: unknown[] = [object];
  for (const raw of field.split('.')) {
    const fanOut = raw.endsWith('[]');
    const key = fanOut ? raw.slice(0, -2) : raw;
    const next: unknown[] = [];
    for (const c of current) {
      if (!c || typeof c !== 'object' || Array.isArray(c) || !Object.hasOwn(c, key)) continue;
      const v = (c as Record<string, unknown>)[key];
      if (fanOut) {
        if (Array.isArray(v)) next.push(...v);
      } else next.push(v);
    }
    current = next;
  }
  return current;
}

/** The problem with one value under a constraint, or undefined when it satisfies it. */
export function checkValue(value: unknown, c: PolicyConstraint): string | undefined {
  if (c.allowedValues && !c.allowedValues.some((a) => a === value))
    return `must be one of ${c.allowedValues.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(value)}`;
  if (c.pattern !== undefined) {
    if (typeof value !== 'string' || !new RegExp(`^(?:${c.pattern})$`).test(value)) return `must match ${c.pattern}, got ${JSON.stringify(value)}`;
  }
  if (c.minimum !== undefined && !(typeof value === 'number' && value >= c.minimum)) return `must be at least ${c.minimum}, got ${JSON.stringify(value)}`;
  if (c.maximum !== undefined && !(typeof value === 'number' && value <= c.maximum)) return `must be at most ${c.maximum}, got ${JSON.stringify(value)}`;
  return undefined;
}

/** A stored organisation policy with its machine-checkable rules, as the write paths check it. */
export interface NamedPolicy {
  id: string;
  description: string;
  constraints: PolicyConstraint[];
  /** The clusters it is limited to (policy-clusters.ts); absent: every cluster. */
  clusters?: PolicyClusters;
}

const KIND = /^(\*|[A-Z][A-Za-z0-9]{0,62})$/;
const MAX_PATTERN = 200;

/** Whether a constraint's pattern compiles as the checker anchors it. */
export function compiles(pattern: string): boolean {
  try {
    new RegExp(`^(?:${pattern})$`);
    return true;
  } catch {
    return false;
  }
}

/**
 * A constraint as a caller sends it inside a policy document: the bounds that
 * make it safe to store and to check later (a short regular expression that
 * compiles, a walkable path, at least one rule).
 */
export const policyConstraintSchema = z
  .strictObject({
    kind: z.string().regex(KIND, 'a kind such as Deployment, or * for every kind').describe('Kind the rule applies to (Deployment), or * for every kind'),
    field: z
      .string()
      .refine(isConstraintPath, 'a dotted path such as spec.replicas or spec.template.spec.containers[].image')
      .describe('Dotted path into the object; [] walks every element of an array (spec.template.spec.containers[].image)'),
    allowedValues: z
      .array(z.union([z.string().max(300), z.number(), z.boolean()]))
      .min(1)
      .max(100)
      .optional()
      .describe('The only values allowed'),
    pattern: z
      .string()
      .min(1)
      .max(MAX_PATTERN)
      .refine(compiles, 'a valid regular expression')
      .optional()
      .describe('Regular expression the whole string value must match'),
    minimum: z.number().optional().describe('Smallest number allowed'),
    maximum: z.number().optional().describe('Largest number allowed'),
    required: z.boolean().optional().describe('The field must be present'),
    message: z.string().trim().min(1).max(500).optional().describe('Shown when the rule is broken'),
  })
  .refine((c) => c.allowedValues !== undefined || c.pattern !== undefined || c.minimum !== undefined || c.maximum !== undefined || c.required === true, {
    message: 'a constraint needs at least one rule: allowedValues, pattern, minimum, maximum or required',
  })
  .refine((c) => c.minimum === undefined || c.maximum === undefined || c.minimum <= c.maximum, {
    message: 'minimum must not exceed maximum',
  }) satisfies z.ZodType<PolicyConstraint>;
