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
    summary: z.string(),
  })
  .describe("svc's verdict after the write, before any model is asked (docs/verify.md)");
