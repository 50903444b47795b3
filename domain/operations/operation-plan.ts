import { z } from 'zod';
import { clusterActionSchema, RISK_LEVELS, type RiskLevel } from '../actions/cluster-action.js';

/** Most actions one operation may hold: a day-2 change is a handful of objects, not a deployment. */
export const MAX_OPERATION_ACTIONS = 20;

/**
 * The model's answer for an operation, checked with zod before anything acts
 * on it. No action is allowed when the intent cannot or need not be done
 * (the summary says why); such a plan cannot be executed.
 */
export const operationPlanSchema = z.strictObject({
  summary: z.string().min(1).max(2000).describe('What the operation changes and why, for a person, including what the live state is now'),
  risk: z.enum(RISK_LEVELS).describe('Overall risk: low (no disruption), medium (brief disruption or restarts), high (an outage or data loss possible)'),
  actions: z.array(clusterActionSchema).max(MAX_OPERATION_ACTIONS).describe('The changes, applied in this order; empty when nothing should change'),
});
export type OperationPlan = z.infer<typeof operationPlanSchema>;

/** The overall risk shown: never lower than the riskiest action, whatever the model called the whole. */
export function overallRisk(plan: OperationPlan): RiskLevel {
  const levels = [plan.risk, ...plan.actions.map((a) => a.risk)];
  return levels.reduce((max, r) => (RISK_LEVELS.indexOf(r) > RISK_LEVELS.indexOf(max) ? r : max), 'low' as RiskLevel);
}
