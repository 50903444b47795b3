import { RISK_LEVELS, type RiskLevel } from '../actions/cluster-action.js';
import type { KubeObject } from '../cluster/kube-types.js';
import { diffSegments } from '../operations/object-diff.js';
import { contentFindings, targetFindings } from './content-risk.js';
import { formatKindName, kindNamed, type KindName } from './kind-names.js';
import type { KindRisk } from './kind-risk.js';
import { foreignImages } from './pod-risk.js';
import type { PodSecurityLevel } from './pod-security.js';
import { describeResolved, type ResolvedTarget } from './resolved-target.js';
import { patchRefusal, unnamedRemovals, type WriteAsSent } from './sent-write.js';

/** What the operator configured about where svc may write. */
export interface GuardSettings {
  /** SVC_WRITE_KINDS, parsed (parseKindName); empty: every kind. */
  kinds: readonly KindName[];
  /** SVC_WRITE_NAMESPACES; empty: every namespace. A cluster-scoped object is outside any list. */
  namespaces: readonly string[];
  /** Namespaces whose every write is high risk: kube-system, kube-public, kube-node-lease and svc's own. */
  protectedNamespaces: readonly string[];
  /** SVC_IMAGE_REGISTRIES (`ghcr.io`, `registry.example:5000`); empty: any registry (a new one is high risk). */
  imageRegistries: readonly string[];
  /** SVC_POD_SECURITY_LEVEL: the Pod Security Standards level a pod is held to where its namespace has no `pod-security.kubernetes.io/enforce` label (default baseline). */
  podSecurityLevel: PodSecurityLevel;
  /** SVC_KIND_RISK: the risk of any change to a kind svc has no rules for (otherwise high). */
  kindRisks: readonly KindRisk[];
}

export type { KindRisk, PodSecurityLevel };

/** Why the guard refuses a write. `OutsideWriteScope`: the allow-lists; `UnsafePatch`: copy/move or a Secret test; `ImageRegistry`: SVC_IMAGE_REGISTRIES. */
export interface GuardRefusal {
  allowed: false;
  code: 'OutsideWriteScope' | 'UnsafePatch' | 'ImageRegistry';
  reason: string;
}

export interface GuardAllowance {
  allowed: true;
  /** The one risk every gate reads: svc's floor, raised (never lowered) by the model's label. */
  risk: RiskLevel;
  /** svc's own assessment, without the label. */
  floor: RiskLevel;
  /** Every reason svc found, high ones first; the label's, when it raised the risk, last. */
  riskReasons: string[];
  /** Diff paths the write removes without naming them (flagged in the diff). */
  unnamedRemovals: string[];
}

export type GuardVerdict = GuardRefusal | GuardAllowance;

const refuse = (code: GuardRefusal['code'], reason: string): GuardRefusal => ({ allowed: false, code, reason });

/**
 * The checks that need no request, made before any I/O (and again with the
 * objects by judgeWrite): SVC_WRITE_KINDS by group and kind, as discovery
 * resolved them; SVC_WRITE_NAMESPACES (a cluster-scoped target is outside
 * any list); JSON Patch copy/move and Secret tests. undefined: go on.
 */
export function checkBeforeIo(target: ResolvedTarget, write: WriteAsSent, settings: GuardSettings): GuardRefusal | undefined {
  const what = describeResolved(target);
  if (!kindNamed(settings.kinds, target.group, target.kind))
    return refuse(
      'OutsideWriteScope',
      `${what} is outside SVC_WRITE_KINDS (${settings.kinds.map(formatKindName).join(', ')}): svc writes only those kinds (a bare kind names the built-in API groups only)`,
    );
  if (settings.namespaces.length && !(target.namespace && settings.namespaces.includes(target.namespace)))
    return refuse(
      'OutsideWriteScope',
      `${what} is in ${target.namespace ? `namespace ${target.namespace}` : 'no namespace (cluster-scoped)'}, outside SVC_WRITE_NAMESPACES (${settings.namespaces.join(', ')}): svc writes only in those namespaces`,
    );
  const unsafe = patchRefusal(target, write);
  return unsafe ? refuse('UnsafePatch', `${what}: ${unsafe}`) : undefined;
}

export interface GuardInput {
  /** From discovery (resolveTarget), never the model's words. */
  target: ResolvedTarget;
  /** The live object; null when absent. */
  live: KubeObject | null;
  /** The object the server-side dry run returned; null for a delete. */
  result: KubeObject | null;
  write: WriteAsSent;
  settings: GuardSettings;
  /** The model's own label: it can raise the risk, never lower it. */
  label?: RiskLevel;
  /**
   * The labels of the target's live Namespace (its `pod-security.kubernetes.io/enforce`
   * label picks the Pod Security level); undefined when the target is
   * cluster-scoped or its Namespace could not be read: settings.podSecurityLevel applies.
   */
  namespaceLabels?: Readonly<Record<string, string>>;
}

const rank = (r: RiskLevel) => RISK_LEVELS.indexOf(r);

/**
 * The write guard: judges a write as the API server would store it (the
 * dry-run object compared with the live one), never as the model describes
 * it. Refused when checkBeforeIo refuses, or an image in a new or changed
 * container (found by shape in any kind) is from a registry outside
 * SVC_IMAGE_REGISTRIES. Otherwise allowed with one risk: high for the target
 * (targetFindings), for deleting anything but a Pod, for the content
 * (contentFindings: every changed field judged by the rule table, unknown
 * kinds and fields high; every pod by the Pod Security Standards), for
 * removals the write does not name (a `replace` included); medium for a Pod
 * delete or what the rules rate medium; else low. Pure; every gate
 * (automatic mode, second approver, ledger, answer, CLI) reads the `risk`
 * this returns.
 */
export function judgeWrite(input: GuardInput): GuardVerdict {
  const { target, live, result, write, settings } = input;
  const early = checkBeforeIo(target, write, settings);
  if (early) return early;
  const { high, medium } = placeFindings(target, write, settings);
  let removals: string[] = [];
  if (write.verb !== 'delete' && result) {
    const outside = settings.imageRegistries.length ? foreignImages(live, result, settings.imageRegistries) : [];
    if (outside.length)
      return refuse(
        'ImageRegistry',
        `${describeResolved(target)}: image ${outside.join(', ')} is outside SVC_IMAGE_REGISTRIES (${settings.imageRegistries.join(', ')})`,
      );
    const found = contentFindings(target, live, result, { ...settings, namespaceLabels: input.namespaceLabels });
    high.push(...found.high);
    medium.push(...found.medium);
    removals = unnamedRemovals(write, diffSegments(live, result), live);
    if (removals.length) high.push(`removes fields the action does not name: ${removals.slice(0, 5).join(', ')}${removals.length > 5 ? ', …' : ''}`);
  }
  return { allowed: true, ...levelled(high, medium, input.label), unnamedRemovals: removals };
}

/** What the target and the verb alone say (no content): targetFindings, and a delete of anything but a Pod high, a Pod's medium. */
function placeFindings(target: ResolvedTarget, write: WriteAsSent, settings: GuardSettings): { high: string[]; medium: string[] } {
  const high = targetFindings(target, settings.protectedNamespaces);
  const medium: string[] = [];
  if (write.verb === 'delete') {
    if (target.group === '' && target.kind === 'Pod') medium.push('deletes a Pod (its containers restart)');
    else high.push(`deletes a ${target.kind}`);
  }
  return { high, medium };
}

function levelled(high: string[], medium: string[], label: RiskLevel | undefined): Pick<GuardAllowance, 'risk' | 'floor' | 'riskReasons'> {
  const floor: RiskLevel = high.length ? 'high' : medium.length ? 'medium' : 'low';
  const raised = label && rank(label) > rank(floor) ? label : undefined;
  return { risk: raised ?? floor, floor, riskReasons: [...high, ...medium, ...(raised ? [`the proposal labels it ${raised}`] : [])] };
}

/**
 * The risk of a write judged on its target and verb alone, for one that
 * was refused before its content was known (shown with the refusal, never
 * used to allow anything). An unresolved target (`undefined`) is high.
 */
export function assessTarget(
  target: ResolvedTarget | undefined,
  write: WriteAsSent,
  settings: GuardSettings,
  label?: RiskLevel,
): Pick<GuardAllowance, 'risk' | 'floor' | 'riskReasons'> {
  if (!target) return levelled(['the target could not be resolved from discovery'], [], label);
  const { high, medium } = placeFindings(target, write, settings);
  return levelled(high, medium, label);
}
