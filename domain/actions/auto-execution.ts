import type { ResourceRef } from '../cluster/kube-types.js';
import { riskWithin, type RiskLevel } from './cluster-action.js';
import { targetSensitivity } from './risk-floor.js';
import { describeTarget } from './write-scope.js';

export interface AutoExecutionInput {
  mode: 'manual' | 'automatic';
  confidence: number;
  confidenceThreshold: number;
  maxRiskLevel: RiskLevel;
  /** The previewed actions: svc's risk (not the model's label), the target, and whether the dry run and svc's checks passed. */
  actions: { risk: RiskLevel; description: string; target: ResourceRef; accepted: boolean }[];
  /** Namespaces the investigation read through the model's function calls. */
  namespacesRead: readonly string[];
  /** svc's own namespace, when known. */
  ownNamespace?: string;
}

/**
 * The automatic-mode rule. Execute only when every action's preview passed
 * (dry run, allow-lists, policies), the confidence reaches the threshold,
 * no target is sensitive (cluster-scoped, RBAC, webhooks, CRDs, Namespaces,
 * Secrets, ServiceAccounts, PersistentVolumes, system namespaces, svc's own
 * namespace: those always wait for a person, whatever maxRiskLevel says),
 * every target is in a namespace the investigation read, and every action's
 * risk as svc assessed it is within `maxRiskLevel`. Otherwise the reason says
 * why not, in words for a person.
 */
export function decideAutoExecution(input: AutoExecutionInput): { execute: boolean; reason: string } {
  const no = (reason: string) => ({ execute: false, reason });
  if (input.mode === 'manual') return no('manual mode: execution waits for executeChoice 1');
  if (input.actions.length === 0) return no('no action was proposed');
  const refused = input.actions.filter((a) => !a.accepted);
  if (refused.length) return no(`${refused.length} action(s) were refused before execution: ${refused.map((a) => a.description).join('; ')}`);
  if (!(input.confidence >= input.confidenceThreshold)) return no(`confidence ${input.confidence} is below the threshold ${input.confidenceThreshold}`);
  const sensitive = input.actions.filter((a) => targetSensitivity(a.target, input.ownNamespace).length > 0);
  if (sensitive.length)
    return no(
      `automatic mode never writes ${sensitive.map((a) => `${describeTarget(a.target)} (${targetSensitivity(a.target, input.ownNamespace).join('; ')})`).join(', ')}: a person must approve`,
    );
  const unread = input.actions.filter((a) => !input.namespacesRead.includes(a.target.namespace!));
  if (unread.length)
    return no(
      `the investigation never read namespace ${[...new Set(unread.map((a) => a.target.namespace))].join(', ')}: automatic mode writes only where the investigation looked`,
    );
  const risky = input.actions.filter((a) => !riskWithin(a.risk, input.maxRiskLevel));
  if (risky.length)
    return no(`${risky.length} action(s) exceed maxRiskLevel ${input.maxRiskLevel}: ${risky.map((a) => `${a.description} (${a.risk})`).join('; ')}`);
  return { execute: true, reason: `confidence ${input.confidence} reaches ${input.confidenceThreshold} and every action is within ${input.maxRiskLevel} risk` };
}
