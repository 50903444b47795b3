import { approvalOutput } from './approval-output.js';
import { z } from 'zod';
import { rolloutReportOutput } from './rollout-output.js';
import { executionHealthOutput } from './health-output.js';
import { RISK_LEVELS } from '../../actions/cluster-action.js';
import { fixDeliveryOutput, gitopsMarkOutput } from './gitops-output.js';
import { actionPreviewFields, refusedOutput } from './action-preview-output.js';

const ref = z.object({ apiVersion: z.string(), kind: z.string(), name: z.string(), namespace: z.string().optional() });

const run = z.object({
  modelCalls: z.number().int().min(0),
  functionsCalled: z.array(z.object({ name: z.string(), arguments: z.string(), ok: z.boolean(), error: z.string().optional() })).describe('the first 40 calls'),
  functionCallCount: z.number().int().min(0),
  stoppedBy: z.enum(['final-answer', 'model-calls', 'tokens', 'deadline', 'provider-error', 'analysis-unusable']),
  limit: z.string().optional().describe('in words, when a limit or a failure ended the run before a usable answer'),
  tokens: z.object({ input: z.number().int().min(0), output: z.number().int().min(0) }),
});

const action = z
  .object({
    action: z.number().int().min(1),
    type: z.enum(['apply', 'patch', 'delete', 'scale', 'rolloutRestart']),
    target: ref.optional().describe('absent for apply: the manifest names the object'),
    manifest: z.record(z.string(), z.unknown()).optional(),
    patch: z
      .union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))])
      .optional()
      .describe(
        'strategic merge patch (built-in kinds), the fields to set on a custom resource (sent as the JSON Patch in `jsonPatch`), or JSON Patch operations (a list)',
      ),
    replicas: z.number().int().optional(),
    description: z.string(),
    risk: z.enum(RISK_LEVELS).describe("svc's assessment: the model's label, raised to svc's floor for what changes and where (from the preview)"),
    rationale: z.string(),
    kubectl: z.string().describe('the equivalent kubectl command, for people only; svc never runs it'),
    gitops: gitopsMarkOutput.optional(),
    ...z.object(actionPreviewFields).partial().shape,
  })
  .describe('a Kubernetes API operation');

const outcome = z.object({
  action: z.number().int(),
  description: z.string(),
  kubectl: z.string(),
  status: z.enum(['applied', 'failed', 'not-run']),
  message: z.string().optional(),
  warnings: z.array(z.string()).optional().describe("The API server's Warning headers on the write (on its dry run when it was not sent)"),
  ledgerId: z.string().optional().describe('the change ledger entry of this write: GET /api/v1/changes/{id}'),
  ledgerError: z.string().optional().describe('the write happened but could not be recorded'),
});

/** The `remediate` tool's result, for every step (start, execute, stop, look). */
export const remediateOutput = z.object({
  sessionId: z.string().describe('rem_ followed by 32 hex digits'),
  status: z.enum([
    'awaiting_approval',
    'executing',
    'executed',
    'delivered_to_git',
    'not_executed',
    'execution_failed',
    'stopped',
    'no_action',
    'investigation_incomplete',
  ]),
  issue: z.string(),
  rootCause: z.string().optional(),
  confidence: z.number().min(0).max(1).optional(),
  evidence: z.array(z.string()).optional().describe('what the model looked at'),
  actions: z.array(action),
  planDigest: z
    .string()
    .optional()
    .describe(
      'sha256 of the plan as previewed (actions, diffs, risks); send it with executeChoice 1 to execute exactly this plan (409 CONFLICT when it changed). A refine makes a new one',
    ),
  investigation: run.extend({ findings: z.string().optional().describe("the model's last words, up to 2000 characters") }),
  settings: z.object({ mode: z.enum(['manual', 'automatic']), confidenceThreshold: z.number(), maxRiskLevel: z.enum(RISK_LEVELS) }),
  automaticExecution: z.object({ executed: z.boolean(), reason: z.string() }).optional(),
  warning: z.string().optional().describe('objects a GitOps controller manages: what a live change means'),
  gitDelivery: fixDeliveryOutput.optional().describe('with delivery git: the commit and pull request instead of a live change'),
  execution: z
    .object({
      status: z.enum(['running', 'done', 'failed']),
      startedAt: z.string(),
      finishedAt: z.string().optional(),
      error: z.string().optional(),
      approval: approvalOutput.optional(),
      outcome: z
        .object({
          report: z.object({
            dryRunPassed: z.boolean().describe('false: the API server refused a dry run and nothing was applied'),
            refused: refusedOutput.optional(),
            outcomes: z.array(outcome),
          }),
          rollouts: z.array(rolloutReportOutput).optional().describe('the changed workloads, waited for before the follow-up check'),
          health: executionHealthOutput.optional(),
        })
        .optional(),
    })
    .optional(),
  verification: z
    .object({
      resolved: z.boolean().nullable().describe('null: the follow-up check could not tell'),
      summary: z.string(),
      remainingProblems: z.array(z.string()).optional(),
      run,
    })
    .optional(),
  message: z.string(),
  nextStep: z.string(),
  expiresAt: z.string(),
  fleet: z
    .object({
      clusterSelector: z.record(z.string(), z.string()),
      clusters: z.array(
        z.object({
          cluster: z.string(),
          sessionId: z.string().optional().describe("the cluster's own remediate session: continue it with its cluster"),
          status: z.string(),
          rootCause: z.string().optional(),
          confidence: z.number().optional(),
          actions: z.array(z.string()).optional().describe('what the cluster’s proposal does, in words'),
          error: z.string().optional(),
        }),
      ),
      common: z.object({
        clusters: z.number().int().describe('clusters whose investigation answered'),
        rootCause: z.string().optional().describe('the root cause every cluster states (same words)'),
        actions: z.array(z.string()).describe('actions (type, kind, namespace/name) every cluster proposes'),
      }),
    })
    .optional()
    .describe('remediate with clusterSelector: the investigation in each matching cluster, and what they have in common'),
});
export type RemediateOutput = z.infer<typeof remediateOutput>;
