import { z } from 'zod';
import { ORG_DATA_OPERATIONS, ORG_DATA_TYPES } from '../../orgdata/org-data-operations.js';

const document = z.looseObject({ id: z.string() }).describe('A stored pattern, policy or capability, with its id');
const progress = z
  .object({
    scanId: z.string(),
    status: z.string(),
    done: z.number().int(),
    total: z.number().int(),
    succeeded: z.number().int(),
    current: z.string().optional(),
    inFlight: z.array(z.string()),
    failures: z.array(z.object({ resource: z.string(), reason: z.string() })),
    startedAt: z.string(),
    updatedAt: z.string(),
    finishedAt: z.string().optional(),
    resumed: z.number().int(),
  })
  .describe('Progress of the latest capability scan');

/**
 * The `manageOrgData` result: always `dataType` and `operation`, then the
 * fields of that operation (create: id, item; list: items, count, total,
 * next; get: item; delete: id, deleted; deleteAll: deletedCount; search:
 * query, results; scan: started, scanId, message, progress; progress: progress).
 */
export const orgDataOutput = z.object({
  dataType: z.enum(ORG_DATA_TYPES),
  operation: z.enum(ORG_DATA_OPERATIONS),
  id: z.string().optional(),
  item: document.optional(),
  items: z.array(document).optional(),
  count: z.number().int().optional(),
  total: z.number().int().optional(),
  next: z.string().optional(),
  deleted: z.boolean().optional(),
  deletedCount: z.number().int().optional(),
  query: z.string().optional(),
  results: z.array(z.object({ score: z.number(), item: document })).optional(),
  started: z.boolean().optional(),
  scanId: z.string().optional(),
  message: z.string().optional(),
  progress: progress.nullable().optional(),
});
