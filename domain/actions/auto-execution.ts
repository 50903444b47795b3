import type { ResourceRef } from '../cluster/kube-types.js';
import { riskWithin, type RiskLevel } from './cluster-action.js';
import { describeTarget } from './write-scope.js';

const NAME = '[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?';
/** What may follow a name: the end, a space, punctuation, or a full stop ending a sentence (never `.example`, `:8080`, `/x`). */
const END = '(?=$|[\\s,;!?)\'"`]|[.:](?:\\s|$))';
const QUOTE = '[\'"`]?';
/** The forms that name a namespace: `namespace X` (also `namespace: X`, `--namespace=X`, quoted), `-n X`, and `X/name` standing alone (not an apiVersion such as apps/v1). */
const FORMS = [
  new RegExp(`\\bnamespaces?\\s*[:=]?\\s*${QUOTE}(${NAME})${QUOTE}${END}`, 'g'),
  new RegExp(`(?:^|\\s)-n(?:\\s+|=)${QUOTE}(${NAME})${QUOTE}${END}`, 'g'),
  new RegExp(`(?:^|[\\s('"\`])(${NAME})/(?!v\\d+(?:(?:alpha|beta)\\d+)?${END})[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?${QUOTE}${END}`, 'g'),
];
const MAX_NAMED = 200;
/** `deploy/web` is kubectl's kind/name, not a namespace: the first word of `X/name` is never one of kubectl's resource names. */
const KUBECTL_TYPES = new Set(
  'po pod pods deploy deployment deployments rs replicaset replicasets sts statefulset statefulsets ds daemonset daemonsets job jobs cj cronjob cronjobs svc service services ing ingress ingresses cm configmap configmaps secret secrets sa serviceaccount serviceaccounts pvc persistentvolumeclaim persistentvolumeclaims pv ns namespace namespaces no node nodes hpa ep endpoints netpol networkpolicy networkpolicies role roles rolebinding rolebindings clusterrole clusterrolebinding crd'.split(
    ' ',
  ),
);

/**
 * The namespaces a caller's own text names, explicitly: `namespace shop`,
 * `namespace: shop`, `--namespace=shop`, `-n shop`, or `shop/web` (at most
 * 200). Never any word that merely could be a namespace name: "fails with
 * the default settings" names none. Only the caller's words (the issue or
 * intent, and the `namespace` input), never text the model or the cluster
 * wrote, so a namespace the model chose to read is not among them unless
 * the caller named it too.
 */
export function namespacesNamedIn(text: string, explicit?: string): string[] {
  const lower = text.toLowerCase();
  const found = FORMS.flatMap((form, i) => [...lower.matchAll(form)].map((m) => m[1]!).filter((n) => i < 2 || !KUBECTL_TYPES.has(n)));
  return [...new Set([...(explicit ? [explicit] : []), ...found])].slice(0, MAX_NAMED);
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
