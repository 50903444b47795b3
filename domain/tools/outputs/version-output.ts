import { z } from 'zod';

const collection = z.object({ exists: z.boolean(), documentsCount: z.number().int().min(0), error: z.string().optional() });

/** The `version` tool's result (SPEC.md "Result of the version tool", plus the status it reports beyond the listed fields). */
export const versionOutput = z.object({
  status: z.enum(['healthy', 'degraded']).describe('healthy when every dependency answers'),
  system: z.object({
    version: z.object({ version: z.string(), nodeVersion: z.string(), platform: z.string(), arch: z.string() }),
    vectorDB: z
      .object({
        connected: z.boolean(),
        provider: z.string(),
        version: z.string().optional(),
        error: z.string().optional(),
        collections: z.record(z.string(), collection).describe('patterns, policies and capabilities'),
      })
      .loose(),
    embedding: z.object({
      provider: z.string(),
      model: z.string(),
      dimension: z.number().int().nullable(),
      kind: z.enum(['semantic', 'lexical']),
      healthy: z.boolean().describe('a real embedding call served (cached 30 s)'),
      error: z.string().optional().describe('why not: the refused key, unknown model or unreachable server, as the embeddings server answered'),
    }),
    aiProvider: z.object({
      configured: z.boolean(),
      provider: z.string(),
      model: z.string().optional(),
      hint: z.string().optional().describe("the provider's settings"),
      headers: z.array(z.string()).optional().describe('names of the extra headers sent with every model request (SVC_LLM_HEADERS); never their values'),
      structuredOutput: z.enum(['json_schema', 'json_object', 'none']).optional().describe('how structured answers are asked (SVC_LLM_STRUCTURED_OUTPUT)'),
      healthy: z.boolean().optional().describe('a configured model answered one small call (cached 30 s, bounded by 10 s)'),
      error: z.string().optional().describe('why not: the refused key, unknown model, unreachable server or timeout'),
      checkedAt: z.string().optional().describe('when the model was last asked (ISO 8601)'),
    }),
    kubernetes: z.object({ connected: z.boolean(), context: z.string(), serverVersion: z.string().optional(), error: z.string().optional() }),
    tracing: z.object({ enabled: z.boolean(), exporter: z.string(), serviceName: z.string(), status: z.string() }),
    sharedState: z
      .object({ configured: z.boolean(), connected: z.boolean(), provider: z.string(), url: z.string().optional(), error: z.string().optional() })
      .describe('the store several replicas share (REDIS_URL); configured false on a single replica'),
    clusters: z
      .array(
        z.object({
          name: z.string(),
          labels: z.record(z.string(), z.string()),
          readOnly: z.boolean(),
          reachable: z.boolean(),
          serverVersion: z.string().optional(),
          error: z.string().optional(),
        }),
      )
      .optional()
      .describe(
        'with SVC_CLUSTERS: every cluster svc serves (or the one the call names), each reachable or not; kubernetes.connected is false when one is not',
      ),
  }),
});
export type VersionOutput = z.infer<typeof versionOutput>;
