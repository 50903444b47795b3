import { approvalOutput } from './approval-output.js';
import { z } from 'zod';
import { RISK_LEVELS } from '../../actions/cluster-action.js';
import { fixDeliveryOutput, gitopsMarkOutput } from './gitops-output.js';
import { actionPreviewFields, refusedOutput } from './action-preview-output.js';
import { rolloutReportOutput } from './rollout-output.js';
import { executionHealthOutput } from './health-output.js';

const target = z.object({ apiVersion: z.string(), kind: z.string(), name: z.string(), namespace: z.string().optional() });

const proposedAction = z.object({
  action: z.number().int().min(1).describe('Position: the order of execution'),
  type: z.enum(['apply', 'patch', 'delete', 'scale', 'rolloutRestart']),
  description: z.string(),
  risk: z.enum(RISK_LEVELS).describe("svc's assessment: the model's label raised to svc's floor"),
  rationale: z.string(),
  target,
  kubectl: z.string().describe('The equivalent kubectl command, for people only: svc uses the Kubernetes API'),
  ...actionPreviewFields,
  gitops: gitopsMarkOutput.optional(),
});

const outcome = z.object({
  succeeded: z.boolean(),
  dryRunPassed: z.boolean(),
  refused: refusedOutput.optional(),
  actions: z.array(
    z.object({
      action: z.number().int(),
      description: z.string(),
      kubectl: z.string(),
      status: z.enum(['applied', 'failed', 'not-run']),
      message: z.string().optional(),
      warnings: z.array(z.string()).optional().describe("The API server's Warning headers on the write (on its dry run when it was not sent)"),
      ledgerId: z.string().optional().describe('the change ledger entry of this write: GET /api/v1/changes/{id}'),
      ledgerError: z.string().optional().describe('the write happened but could not be recorded'),
    }),
  ),
  rollouts: z.array(rolloutReportOutput),
  objects: z.array(z.object({ target, state: z.string() })),
  gitDelivery: fixDeliveryOutput.optional().describe('with delivery git: the commit and pull request instead of a live change'),
  health: executionHealthOutput.optional(),
});

/** The `operate` tool's result: the session as it stands after the call, and the next step in words. */
export const operateOutput = z.object({
  sessionId: z.string(),
  status: z.enum(['awaiting_approval', 'needs_refinement', 'stopped', 'executing', 'executed', 'delivered_to_git', 'execution_failed', 'dry_run_refused']),
  intent: z.string(),
  refinements: z.array(z.string()),
  planDigest: z
    .string()
    .describe(
      'sha256 of the plan as previewed (actions, diffs, risks); send it with executeChoice 1 to execute exactly this plan (409 CONFLICT when it changed). A refine makes a new one',
    ),
  proposal: z.object({
    summary: z.string(),
    risk: z.enum(RISK_LEVELS).describe('Overall risk, never below the riskiest action'),
    executable: z.boolean(),
    actions: z.array(proposedAction),
    investigation: z.object({ modelCalls: z.number().int(), functionCalls: z.number().int(), stoppedBy: z.string() }),
    plannedAt: z.string(),
    warning: z.string().optional().describe('objects a GitOps controller manages: what a live change means'),
  }),
  execution: z
    .object({
      status: z.enum(['running', 'done', 'failed']),
      startedAt: z.string(),
      finishedAt: z.string().optional(),
      outcome: outcome.optional(),
      error: z.string().optional(),
      approval: approvalOutput.optional(),
    })
    .optional(),
  stoppedAt: z.string().optional(),
  nextStep: z.string(),
  rollout: z
    .object({
      clusterSelector: z.record(z.string(), z.string()),
      waves: z.array(
        z.object({
          wave: z.number().int().min(1),
          status: z.enum(['pending', 'executed', 'degraded', 'reverted', 'not-run']),
          clusters: z.array(
            z.object({
              cluster: z.string(),
              sessionId: z.string().describe("the cluster's own operate session"),
              planDigest: z.string(),
              status: z.string().describe("the cluster's operate status"),
              verdict: z.enum(['healthy', 'degraded', 'unknown']).optional(),
              reverted: z.array(z.string()).optional().describe('ledger ids of the reverts of this cluster’s writes'),
              error: z.string().optional(),
            }),
          ),
        }),
      ),
      stoppedAt: z.object({ wave: z.number().int(), cluster: z.string(), reason: z.string() }).optional(),
    })
    .optional()
    .describe('operate with clusterSelector: the rollout across clusters, wave by wave'),
});
export type OperateOutput = z.infer<typeof operateOutput>;
