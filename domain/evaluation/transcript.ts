import { z } from 'zod';

/**
 * A scenario's recorded model answers (`scenarios/<name>/transcript.yaml`), in
 * the order svc asks for them over the whole case: the investigation's turns,
 * the structured answer, then the follow-up check after execution. Neutral
 * shape (what test/support/scripted-model.ts plays): text, a JSON answer or
 * function calls, and optionally the usage the model reported.
 */
export const transcriptReply = z
  .strictObject({
    content: z.string().max(100_000).optional().describe('the answer text'),
    json: z.record(z.string(), z.unknown()).optional().describe('a structured answer, sent as its JSON text'),
    toolCalls: z
      .array(
        z.strictObject({
          name: z.string().min(1).max(64),
          arguments: z.union([z.record(z.string(), z.unknown()), z.string().max(20_000)]).describe('an object, or raw text (it may be malformed)'),
        }),
      )
      .min(1)
      .max(16)
      .optional(),
    usage: z.strictObject({ prompt: z.number().int().min(0), completion: z.number().int().min(0) }).optional(),
    cluster: z
      .string()
      .min(1)
      .max(63)
      .optional()
      .describe(
        'in a case on several clusters, the cluster the call was for: a fleet investigation asks each cluster at once, so the replies of each cluster are played in their order, whichever cluster asks first',
      ),
  })
  .refine((r) => r.content !== undefined || r.json !== undefined || r.toolCalls !== undefined, 'content, json or toolCalls')
  .refine((r) => r.content === undefined || r.json === undefined, 'content or json, not both');
export type TranscriptReply = z.infer<typeof transcriptReply>;

export const transcriptSchema = z.strictObject({
  source: z.enum(['hand-written', 'recorded']),
  model: z.string().min(1).max(200).optional().describe('the model that answered, for a recorded transcript'),
  recordedAt: z.string().max(40).optional(),
  failed: z.literal(true).optional().describe('recorded with --force from a case that failed'),
  replies: z.array(transcriptReply).min(1).max(300),
});
export type Transcript = z.infer<typeof transcriptSchema>;

/** The text a reply carries to svc (a JSON answer as its JSON text). */
export function replyText(reply: TranscriptReply): string {
  if (reply.json !== undefined) return JSON.stringify(reply.json);
  return reply.content ?? '';
}
