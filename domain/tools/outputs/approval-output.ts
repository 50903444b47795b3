import { z } from 'zod';
import { CALLER_KINDS } from '../../auth/caller.js';

/** Who approved the plan that ran, as the session records it (SessionOwner): every field the answer carries. */
export const approvalOutput = z
  .object({
    by: z.object({
      id: z.string().optional().describe('the identity id, kind:issuer:subject (absent on sessions stored before ids were)'),
      username: z.string(),
      kind: z.enum(CALLER_KINDS),
      person: z.string().optional().describe("the people file's person of that identity, when it names one"),
    }),
    planDigest: z.string(),
  })
  .describe('who approved the plan that ran, and its digest');
