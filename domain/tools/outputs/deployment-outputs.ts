import { executionHealthOutput } from './health-output.js';
import { z } from 'zod';

/**
 * Results of the five deployment-workflow tools: the OpenAPI response
 * schemas, MCP outputSchema and what the CLI reads (`nextSteps`), from one
 * definition. Objects stay open (`loose`) where they carry cluster data.
 */

const tool = z.enum(['recommend', 'chooseSolution', 'answerQuestion', 'generateManifests', 'deployManifests']);

/** The calls that may come next, the recommended one first, with their parameters filled in. */
export const nextStepsOutput = z
  .array(z.object({ tool, params: z.record(z.string(), z.unknown()), why: z.string() }))
  .describe('Calls that may come next, recommended first, parameters filled in (answers: the suggested defaults)');

const resource = z.object({ apiVersion: z.string(), kind: z.string(), namespaced: z.boolean(), purpose: z.string() });
const solution = z.object({
  score: z.number(),
  description: z.string(),
  resources: z.array(resource),
  patternsApplied: z.array(z.string()),
  policiesRespected: z.array(z.string()),
  droppedResources: z
    .array(z.object({ kind: z.string(), apiVersion: z.string().optional(), reason: z.string() }))
    .describe('Kinds the cluster does not serve, dropped'),
});
const answer = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
const question = z.object({
  id: z.string(),
  text: z.string(),
  type: z.enum(['string', 'integer', 'number', 'boolean', 'select', 'text']),
  stage: z.enum(['required', 'basic', 'advanced', 'open']),
  validation: z.object({
    enum: z.array(z.union([z.string(), z.number(), z.boolean()])).optional(),
    pattern: z.string().optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    required: z.boolean().optional(),
  }),
  default: answer.optional(),
  target: z.object({ kind: z.string(), field: z.string() }).optional(),
  policyRules: z.array(z.object({ policy: z.string(), constraint: z.record(z.string(), z.unknown()) })).optional(),
});
const objectRef = { apiVersion: z.string(), kind: z.string(), name: z.string(), namespace: z.string().optional() };

export const recommendOutput = z.object({
  status: z.enum(['solutions', 'no-solutions', 'needs-clarification']),
  intent: z.string(),
  guidance: z.array(z.string()).optional().describe('With needs-clarification: what to add to the intent'),
  solutions: z.array(solution.extend({ solutionId: z.string() })),
  organizationalContext: z.object({ capabilities: z.number().int(), patterns: z.array(z.string()), policies: z.array(z.string()) }).optional(),
  notes: z.array(z.string()),
  nextSteps: z.array(z.object({ tool, params: z.record(z.string(), z.unknown()), why: z.string() })),
});

export const chooseSolutionOutput = z.object({
  solutionId: z.string(),
  solution,
  questions: z.object({ required: z.array(question), basic: z.array(question), advanced: z.array(question), open: z.array(question) }),
  answered: z.array(z.string()),
  notes: z.array(z.string()),
  nextSteps: nextStepsOutput,
});

export const answerQuestionOutput = z.object({
  solutionId: z.string(),
  stage: z.enum(['required', 'basic', 'advanced', 'open']),
  accepted: z.record(z.string(), answer),
  nextStage: z.enum(['required', 'basic', 'advanced', 'open']).nullable(),
  readyForManifests: z.boolean(),
  notes: z.array(z.string()).optional(),
  nextSteps: nextStepsOutput,
});

export const generateManifestsOutput = z.object({
  solutionId: z.string(),
  status: z.literal('generated'),
  attempts: z.number().int().min(1).max(10),
  objects: z.array(z.object(objectRef)),
  manifests: z.string().describe('The final manifests as YAML documents'),
  nextSteps: nextStepsOutput,
});

const objectOutcome = z.object({
  ...objectRef,
  risk: z.enum(['low', 'medium', 'high']).describe("svc's risk for writing the object: its kind, namespace and what its dry run changes"),
  riskReasons: z.array(z.string()).optional(),
  outcome: z
    .enum(['created', 'updated', 'unchanged', 'refused', 'failed', 'not-run'])
    .describe('refused: its dry run was refused, nothing was applied; not-run: an earlier object failed or was refused'),
  message: z.string().optional(),
  warnings: z.array(z.string()).optional().describe("The API server's Warning headers on its apply (on its dry run when it was not applied)"),
  ledgerId: z.string().optional().describe('The change ledger entry of its apply: GET /api/v1/changes/{id}'),
});

const fieldChange = z.object({ path: z.string(), from: z.unknown().optional(), to: z.unknown().optional() });
const previewedObject = z.object({
  ...objectRef,
  effect: z.enum(['create', 'update', 'unchanged', 'refused']).describe('What applying it would do; refused: the write guard or the API server refuses it'),
  risk: z.enum(['low', 'medium', 'high']).describe("svc's risk (the write guard's, judged on the dry run's object against the live one)"),
  riskReasons: z.array(z.string()).optional(),
  refusal: z
    .object({ reason: z.string(), message: z.string() })
    .optional()
    .describe(
      "With refused: OutsideSolution, InvalidTarget, OutsideWriteScope, ImageRegistry, PolicyViolation, PoliciesUnreadable, or the API server's reason",
    ),
  diff: z.array(fieldChange).describe("The live object against the dry run's (Secret values as ***)"),
  diffOmitted: z.number().int().optional(),
  resourceVersion: z.string().optional().describe('The live object the preview read'),
  warnings: z.array(z.string()).optional(),
});

export const clusterDeployOutput = z.object({
  solutionId: z.string(),
  status: z
    .enum(['ready', 'timeout', 'dry_run_refused', 'apply_failed', 'previewed'])
    .describe(
      'dry_run_refused: every object was previewed first and one was refused, nothing applied; apply_failed: an apply failed, the rest were not applied; previewed: with preview, nothing written',
    ),
  preview: z.array(previewedObject).optional().describe('With previewed and dry_run_refused: each object as the write guard previewed it'),
  planDigest: z
    .string()
    .optional()
    .describe('The digest of the previewed plan: send it with the deploy to apply exactly this plan (409 CONFLICT when it changed)'),
  waitedSeconds: z.number(),
  applied: z.array(objectOutcome).describe('Each object in apply order: its dry run and apply outcome and its risk'),
  cleanup: z
    .object({
      created: z
        .array(z.object({ ...objectRef, ledgerId: z.string().optional() }))
        .describe('The objects this run created (they did not exist before it), newest first'),
      call: z
        .object({ tool: z.literal('deployManifests'), params: z.object({ solutionId: z.string(), cleanup: z.literal(true) }) })
        .optional()
        .describe("The call that deletes them and nothing else, through the change ledger's revert"),
      kubectl: z.array(z.string()).optional().describe('For created objects the change ledger did not record: the commands a person runs'),
    })
    .optional()
    .describe('With apply_failed: how to delete what this run created'),
  objects: z.array(z.object({ ...objectRef, ready: z.boolean(), reason: z.string() })),
  ledgerIds: z.array(z.string()).optional().describe('the change ledger entries of the objects applied, in order: GET /api/v1/changes/{id}'),
  pending: z
    .array(
      z.object({
        ...objectRef,
        ready: z.boolean(),
        reason: z.string(),
        events: z.array(z.object({ object: z.string(), type: z.string(), reason: z.string(), message: z.string(), count: z.number() })),
      }),
    )
    .optional()
    .describe("With timeout: what is not ready, with its events and its pods' warnings"),
  message: z.string().optional(),
  health: executionHealthOutput.optional(),
  nextSteps: nextStepsOutput,
});

const gitDeployOutput = z.object({
  solutionId: z.string(),
  status: z.enum(['pushed', 'unchanged']).describe('pushed: a commit was pushed; unchanged: the branch already held these files, nothing was pushed'),
  delivery: z.literal('git'),
  gitops: z.object({
    repository: z.string().describe('The repository URL, credentials scrubbed'),
    branch: z.string(),
    baseBranch: z.string(),
    commit: z.string().describe('The commit at the tip of the branch'),
    branchCreated: z.boolean(),
    files: z.array(z.string()).describe('Files written, relative to the repository root'),
    pullRequest: z.object({ url: z.string(), number: z.number().int(), existing: z.boolean() }).optional(),
  }),
  ledgerIds: z.array(z.string()).optional().describe('the change ledger entry of this delivery: GET /api/v1/changes/{id}'),
  ledgerError: z.string().optional().describe('set when the delivery could not be recorded in the change ledger (it happened all the same)'),
  message: z.string(),
  nextStep: z.string().describe('What a person does next (review and merge, or open a pull request)'),
  nextSteps: nextStepsOutput,
});

/** deployManifests applying to the cluster. */
export type ClusterDeployOutput = z.infer<typeof clusterDeployOutput>;

const cleanupOutput = z.object({
  solutionId: z.string(),
  status: z.enum(['cleaned_up', 'cleanup_incomplete']).describe('cleanup_incomplete: some created objects were kept (see each message)'),
  cleanup: z
    .array(
      z.object({
        ...objectRef,
        outcome: z
          .enum(['deleted', 'already-deleted', 'kept'])
          .describe('kept: not deleted (it changed since the deploy, is gone, or the ledger did not record it); the message says why'),
        ledgerId: z.string().optional().describe('The ledger entry of its creation'),
        revertId: z.string().optional().describe('The ledger entry of its deletion'),
        message: z.string().optional(),
      }),
    )
    .describe('Each object the last deploy created, newest first'),
  message: z.string(),
  nextSteps: nextStepsOutput,
});

/** deployManifests with `cleanup: true`. */
export type DeployCleanupOutput = z.infer<typeof cleanupOutput>;

/** Applied to the cluster (status ready or timeout), delivered through git (`delivery: git`), or cleaned up (`cleanup: true`). */
export const deployManifestsOutput = z.union([clusterDeployOutput, gitDeployOutput, cleanupOutput]);
