import { z } from 'zod';
import { clusterActionSchema } from '../../actions/cluster-action.js';

const target = z.object({ apiVersion: z.string(), kind: z.string(), name: z.string(), namespace: z.string().optional() });

const rollback = z.object({
  patch: z.record(z.string(), z.unknown()).describe('patch restoring the previous spec values (lists whole)'),
  kubectlPatch: z.string(),
  kubectlUndo: z.string(),
  action: clusterActionSchema,
});

/** The rollout of one changed Deployment, StatefulSet or DaemonSet, as operate and remediate report it after execution. */
export const rolloutReportOutput = z.object({
  target,
  state: z.enum(['rolled-out', 'failed', 'timed-out', 'unknown']),
  message: z.string(),
  waitedMs: z.number(),
  rollback: rollback.optional().describe('with any state but rolled-out: how to put the previous spec back'),
});
