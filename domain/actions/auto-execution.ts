import { riskWithin, type RiskLevel } from './cluster-action.js';

export interface AutoExecutionInput {
  mode: 'manual' | 'automatic';
  confidence: number;
  confidenceThreshold: number;
  maxRiskLevel: RiskLevel;
  actions: { risk: RiskLevel; description: string }[];
}

/**
 * The automatic-mode rule: execute only when the confidence reaches the
 * threshold and every action's risk is within `maxRiskLevel`. Otherwise the
 * reason says why not, in words for a person.
 */
export function decideAutoExecution(input: AutoExecutionInput): { execute: boolean; reason: string } {
  if (input.mode === 'manual') return { execute: false, reason: 'manual mode: execution waits for executeChoice 1' };
  if (input.actions.length === 0) return { execute: false, reason: 'no action was proposed' };
  if (!(input.confidence >= input.confidenceThreshold)) {
    return { execute: false, reason: `confidence ${input.confidence} is below the threshold ${input.confidenceThreshold}` };
  }
  const risky = input.actions.filter((a) => !riskWithin(a.risk, input.maxRiskLevel));
  if (risky.length > 0) {
    return {
      execute: false,
      reason: `${risky.length} action(s) exceed maxRiskLevel ${input.maxRiskLevel}: ${risky.map((a) => `${a.description} (${a.risk})`).join('; ')}`,
    };
  }
  return { execute: true, reason: `confidence ${input.confidence} reaches ${input.confidenceThreshold} and every action is within ${input.maxRiskLevel} risk` };
}
