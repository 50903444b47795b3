import { z } from 'zod';
import { clusterActionSchema } from '../actions/cluster-action.js';

/** Most actions one analysis may propose; more is refused as unusable, not cut. */
export const MAX_REMEDIATION_ACTIONS = 10;

/**
 * The model's analysis of an issue, as svc accepts it: the answer is checked
 * against this schema and nothing else of the model's text is acted on. An
 * action reaches the cluster only through `clusterActionSchema`, the dry run
 * of every action, and the approval or automatic-mode rule.
 */
export const remediationAnalysisSchema = z.strictObject({
  rootCause: z.string().min(1).max(2000).describe('The root cause, in one or two sentences a person can check'),
  confidence: z.number().min(0).max(1).describe('How sure you are of the root cause, 0 to 1'),
  evidence: z.array(z.string().min(1).max(500)).max(30).describe('What you looked at that supports the root cause: objects, events, log lines'),
  actions: z
    .array(clusterActionSchema)
    .max(MAX_REMEDIATION_ACTIONS)
    .describe(
      `Kubernetes API operations that fix the root cause, in order (at most ${MAX_REMEDIATION_ACTIONS}); empty when nothing in the cluster should change`,
    ),
});
export type RemediationAnalysis = z.infer<typeof remediationAnalysisSchema>;

/** The follow-up investigation's verdict after the actions were applied. */
export const verificationSchema = z.strictObject({
  resolved: z.boolean().describe('true when the issue is gone'),
  summary: z.string().min(1).max(2000).describe('What you checked and what you saw'),
  remainingProblems: z.array(z.string().min(1).max(500)).max(10).optional().describe('What is still wrong, if anything'),
});
export type Verification = z.infer<typeof verificationSchema>;
