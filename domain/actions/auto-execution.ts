import type { ResourceRef } from '../cluster/kube-types.js';
import { riskWithin, type RiskLevel } from './cluster-action.js';
import { describeTarget } from './write-scope.js';

const NAMESPACE_TOKEN = /[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/g;
const MAX_NAMED = 200;

/**
 * The namespaces a caller's own text may name: every word of it that is a
 * valid namespace name (lower-cased), at most 200. Only the caller's words
 * (the issue or intent), never text the model or the cluster wrote, so a
 * namespace the model chose to read is not among them unless the caller
 * named it too.
 */
export function namespacesNamedIn(text: string): string[] {
  return [...new Set(text.toLowerCase().match(NAMESPACE_TOKEN) ?? [])].slice(0, MAX_NAMED);
}

export interface AutoExecutionInput {
  mode: 'manual' | 'automatic';
  confidence: number;
  confidenceThreshold: number;
  maxRiskLevel: RiskLevel;
  /**
   * The previewed actions: svc's risk (the write guard's, not the model's
   * label), the target as discovery resolved it, why the target is never
   * written automatically (`sensitive`, from the guard), and whether the
   * dry run and svc's checks passed.
   */
  actions: { risk: RiskLevel; description: string; target: ResourceRef; sensitive: readonly string[]; accepted: boolean }[];
  /** Namespaces the caller named (namespacesNamedIn of the issue), never ones the model chose to read. */
  namespacesNamed: readonly string[];
}

/**
 * The automatic-mode rule. Execute only when every action's preview passed
 * (dry run, allow-lists, policies), the confidence reaches the threshold,
 * no target is sensitive (cluster-scoped, RBAC, admission and policy
 * objects, NetworkPolicies, CRDs, Namespaces, Nodes, Secrets, ...,
 * protected namespaces: those always wait for a person, whatever
 * maxRiskLevel says), every target is in a namespace the caller named, and every action's
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
  const sensitive = input.actions.filter((a) => a.sensitive.length > 0 || !a.target.namespace);
  if (sensitive.length)
    return no(
      `automatic mode never writes ${sensitive.map((a) => `${describeTarget(a.target)} (${a.sensitive.join('; ') || 'cluster-scoped'})`).join(', ')}: a person must approve`,
    );
  const unnamed = input.actions.filter((a) => !input.namespacesNamed.includes(a.target.namespace!));
  if (unnamed.length)
    return no(
      `the issue never names namespace ${[...new Set(unnamed.map((a) => a.target.namespace))].join(', ')}: automatic mode writes only in namespaces the caller named`,
    );
  const risky = input.actions.filter((a) => !riskWithin(a.risk, input.maxRiskLevel));
  if (risky.length)
    return no(`${risky.length} action(s) exceed maxRiskLevel ${input.maxRiskLevel}: ${risky.map((a) => `${a.description} (${a.risk})`).join('; ')}`);
  return { execute: true, reason: `confidence ${input.confidence} reaches ${input.confidenceThreshold} and every action is within ${input.maxRiskLevel} risk` };
}
