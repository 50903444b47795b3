import { z } from 'zod';

const cause = z.object({ field: z.string().optional(), message: z.string() });

/** A previewed action's verdict: the API server's dry run, or svc's refusal before it (OutsideWriteScope, PolicyViolation). */
export const dryRunOutput = z.union([
  z.object({ accepted: z.literal(true) }),
  z.object({
    accepted: z.literal(false),
    reason: z.string(),
    message: z.string().describe("The API server's message, or svc's reason"),
    causes: z.array(cause),
    byCaller: z.literal(true).optional().describe('The cluster (or svc) refused the caller: executing this proposal is 403 FORBIDDEN'),
  }),
]);

/** What a preview adds to a proposed action, for remediate and operate alike. */
export const actionPreviewFields = {
  riskReasons: z
    .array(z.string())
    .optional()
    .describe("Why svc assessed this risk (what the object as the API server would store it changes, and where); the model's label last when it raised it"),
  sensitive: z.array(z.string()).optional().describe('Why the target itself (its kind and place) is never written automatically'),
  effect: z.enum(['create', 'update', 'delete']),
  dryRun: dryRunOutput,
  diff: z
    .array(z.object({ path: z.string(), from: z.unknown().optional(), to: z.unknown().optional(), note: z.string().optional() }))
    .describe('Fields of the dry-run result that differ from the live object; no `from`: a new field, no `to`: a removed one'),
  diffOmitted: z.number().int().optional(),
  warnings: z.array(z.string()).optional().describe("The API server's Warning headers on the dry run"),
  jsonPatch: z
    .array(
      z.object({
        op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
        path: z.string(),
        from: z.string().optional(),
        value: z.unknown().optional(),
      }),
    )
    .optional()
    .describe('For a custom resource: the JSON Patch (RFC 6902) svc computed from the live object; what the dry run tested and what execution sends'),
  resourceVersion: z.string().optional().describe('The version of the live object the diff was made against: execution refuses when it changed since (409)'),
  uid: z
    .string()
    .optional()
    .describe('For a delete: the uid of the live object; execution deletes only that object (a Pod re-created under the same name since is not deleted: 409)'),
};

export const refusedOutput = z.object({ action: z.number().int(), description: z.string(), reason: z.string(), message: z.string(), causes: z.array(cause) });
