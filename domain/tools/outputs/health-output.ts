import { z } from 'zod';

const target = z.object({ apiVersion: z.string(), kind: z.string(), name: z.string(), namespace: z.string().optional() });

/** svc's deterministic verdict after an execution (operate, remediate, deployManifests), and what was done about a degraded one. */
export const executionHealthOutput = z
  .object({
    verdict: z.enum(['healthy', 'degraded', 'unknown']).describe('degraded: worse than before the write; unknown: svc could not tell'),
    evidence: z.array(z.string()).describe('one line per finding, "Deployment x/web: ..."'),
    objects: z.array(z.object({ target, health: z.enum(['healthy', 'degraded', 'unknown']), evidence: z.array(z.string()) })),
    windowMs: z.number().describe('the settle window watched (SVC_VERIFY_WINDOW_MS, lowered by the run deadline)'),
    observedMs: z.number(),
    observations: z.number().int(),
    onFailure: z.enum(['revert', 'report']),
    reverted: z
      .array(z.object({ ledgerId: z.string(), revertId: z.string().describe('the ledger entry of the revert'), target }))
      .optional()
      .describe('with degraded and onFailure revert: each write undone, newest first'),
    notReverted: z
      .array(
        z.object({
          ledgerId: z.string().optional(),
          target,
          reason: z.string(),
          revertId: z.string().optional().describe('a revert that was sent and failed: its ledger entry'),
          kubectl: z.array(z.string()).optional().describe('the last resort, by hand'),
        }),
      )
      .optional()
      .describe('writes that could not be undone, and why'),
    revertCalls: z
      .array(z.object({ ledgerId: z.string(), method: z.literal('POST'), path: z.string(), body: z.object({}), cli: z.string() }))
      .optional()
      .describe('with degraded and onFailure report: the calls that revert, newest first'),
    stable: z.literal(true).optional().describe('every changed object was healthy for SVC_VERIFY_STABLE_MS: the window ended early'),
    pending: z
      .literal(true)
      .optional()
      .describe('the verdict so far: the answer did not wait for the end of the window (SVC_VERIFY_ANSWER_MS); followUp says where the rest goes'),
    followUp: z
      .object({
        runId: z.string().optional().describe('the follow-up run watching the rest of the window: GET /api/v1/runs/{runId}'),
        events: z.string().optional().describe("the run's progress events (verify steps, then done with the final verdict)"),
        ledgerIds: z.array(z.string()).describe('the ledger entries of the writes being watched'),
        note: z.string(),
      })
      .optional(),
    decidedAt: z
      .string()
      .optional()
      .describe('ISO 8601: when a verdict that came after the answer was reached (it replaced the verdict so far on the session)'),
    verdictIds: z
      .array(z.string())
      .optional()
      .describe('a verdict that came after the answer: its verdict entries in the change ledger, one per recorded write (each names the change in verdictOf)'),
    summary: z.string(),
  })
  .describe("svc's verdict after the write, before any model is asked (docs/verify.md)");
