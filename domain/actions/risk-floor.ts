import type { ResourceRef } from '../cluster/kube-types.js';
import { formatPath, type PathSegment, type SegmentChange } from '../operations/object-diff.js';
import { RISK_LEVELS, actionTarget, type ClusterAction, type RiskLevel } from './cluster-action.js';
import { SYSTEM_NAMESPACES } from './write-scope.js';

/** Kinds that grant access, change admission, define APIs, or hold credentials or volumes: a write to one is high risk wherever it is. */
export const SENSITIVE_KINDS: ReadonlySet<string> = new Set([
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
  'CustomResourceDefinition',
  'APIService',
  'Namespace',
  'Secret',
  'ServiceAccount',
  'PersistentVolume',
  'CertificateSigningRequest',
]);

export interface RiskContext {
  /** svc's own namespace, when known. */
  ownNamespace?: string;
  /** The dry-run result against the live object, field by field; absent before a dry run. */
  diff?: SegmentChange[];
}

export interface RiskAssessment {
  /** The higher of the model's label and svc's floor. */
  risk: RiskLevel;
  /** Why svc's floor is what it is, for a person; empty when nothing raised it. */
  reasons: string[];
  /** Paths the dry-run diff removes that the action does not name. */
  unnamedRemovals: string[];
}

const higher = (a: RiskLevel, b: RiskLevel): RiskLevel => (RISK_LEVELS.indexOf(a) >= RISK_LEVELS.indexOf(b) ? a : b);

/**
 * svc's judgement of an action's risk, decided from what is changed and
 * where, never from the model's label, which can only raise it:
 * - high: a cluster-scoped target, a sensitive kind (RBAC, admission
 *   webhooks, CRDs, Namespaces, Secrets, ServiceAccounts, PersistentVolumes),
 *   anything in kube-system, kube-public, kube-node-lease or svc's own
 *   namespace; deleting anything but a Pod; scaling to zero; a dry-run diff
 *   that removes fields the action does not name;
 * - at least medium: any change to a pod template (pods restart, as with a
 *   rollout restart), a rollout restart, deleting a Pod.
 */
export function assessRisk(action: ClusterAction, context: RiskContext = {}): RiskAssessment {
  const target = actionTarget(action);
  const high: string[] = [...targetSensitivity(target, context.ownNamespace)];
  const medium: string[] = [];
  if (action.type === 'delete')
    (target.kind === 'Pod' ? medium : high).push(target.kind === 'Pod' ? 'deletes a Pod (its containers restart)' : `deletes a ${target.kind}`);
  if (action.type === 'scale' && action.replicas === 0) high.push('scales to zero replicas');
  if (action.type === 'rolloutRestart') medium.push('restarts every pod of the workload');
  if (action.type !== 'delete' && changesPodTemplate(action, target, context.diff)) medium.push('changes the pod template: pods are replaced');
  const unnamedRemovals = context.diff ? removedUnnamed(action, context.diff) : [];
  if (unnamedRemovals.length)
    high.push(`removes fields the action does not name: ${unnamedRemovals.slice(0, 5).join(', ')}${unnamedRemovals.length > 5 ? ', …' : ''}`);
  const floor: RiskLevel = high.length ? 'high' : medium.length ? 'medium' : 'low';
  const reasons = high.length ? high : medium;
  return { risk: higher(action.risk, floor), reasons: RISK_LEVELS.indexOf(floor) > RISK_LEVELS.indexOf(action.risk) ? reasons : [], unnamedRemovals };
}

/** Why the target alone makes a write high risk (empty when it does not): automatic mode never writes such a target. */
export function targetSensitivity(target: ResourceRef, ownNamespace: string | undefined): string[] {
  const out: string[] = [];
  if (!target.namespace) out.push(`${target.kind} is cluster-scoped (or names no namespace)`);
  if (SENSITIVE_KINDS.has(target.kind)) out.push(`${target.kind} is a sensitive kind (access, admission, API definitions, credentials or volumes)`);
  if (target.namespace && SYSTEM_NAMESPACES.has(target.namespace)) out.push(`${target.namespace} is a system namespace`);
  if (target.namespace && target.namespace === ownNamespace) out.push(`${target.namespace} is svc's own namespace`);
  return out;
}

/** The pod template of the kind, as diff segments: `spec.template` (workloads), `spec.jobTemplate.spec.template` (CronJob), `spec` (Pod). */
function templatePath(kind: string): string[] | undefined {
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'ReplicationController'].includes(kind)) return ['spec', 'template'];
  if (kind === 'CronJob') return ['spec', 'jobTemplate', 'spec', 'template'];
  if (kind === 'Pod') return ['spec'];
  return undefined;
}

const keysOf = (segments: PathSegment[]) => segments.map((s) => ('key' in s ? s.key : '*'));
const related = (a: string[], b: string[]) => a.slice(0, Math.min(a.length, b.length)).every((k, i) => k === b[i]);

function changesPodTemplate(action: ClusterAction, target: ResourceRef, diff: SegmentChange[] | undefined): boolean {
  const template = templatePath(target.kind);
  if (!template) return false;
  if (diff) return diff.some((c) => related(keysOf(c.segments), template));
  // before a dry run: judge from what the action sends
  if (action.type === 'apply') return true;
  if (action.type !== 'patch') return false;
  return Array.isArray(action.patch) ? action.patch.some((op) => related(op.path.split('/').slice(1), template)) : hasPath(action.patch, template);
}

function hasPath(o: unknown, path: string[]): boolean {
  let at = o;
  for (const k of path) {
    if (!at || typeof at !== 'object' || !(k in at)) return false;
    at = (at as Record<string, unknown>)[k];
  }
  return true;
}

/**
 * Diff entries that drop a field (or shorten a list) which the action does not
 * name for removal: a null in a patch, a `$patch: delete` element, a JSON
 * Patch `remove`. An apply names no removal.
 */
function removedUnnamed(action: ClusterAction, diff: SegmentChange[]): string[] {
  const named = action.type === 'patch' ? namedRemovals(action.patch) : [];
  return diff
    .filter((c) => 'from' in c && (!('to' in c) || (Array.isArray(c.from) && Array.isArray(c.to) && c.to.length < c.from.length)))
    .filter((c) => !named.some((n) => prefixes(n, c.segments)))
    .map((c) => formatPath(c.segments));
}

type Named = (string | { name: string } | '*')[];

function namedRemovals(patch: unknown): Named[] {
  const out: Named[] = [];
  if (Array.isArray(patch)) {
    for (const op of patch as { op: string; path: string; from?: string }[]) {
      const pointer = op.op === 'remove' || op.op === 'replace' ? op.path : op.op === 'move' ? op.from : undefined;
      if (pointer)
        out.push(
          pointer
            .split('/')
            .slice(1)
            .map((t) => (/^\d+$/.test(t) ? '*' : t.replace(/~1/g, '/').replace(/~0/g, '~'))),
        );
    }
    return out;
  }
  const walk = (v: unknown, at: Named) => {
    if (v === null) return void out.push(at);
    if (Array.isArray(v)) {
      for (const item of v) {
        if (item && typeof item === 'object' && (item as Record<string, unknown>).$patch === 'delete') {
          const name = (item as Record<string, unknown>).name;
          out.push([...at, typeof name === 'string' ? { name } : '*']);
        }
      }
      return;
    }
    if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
  };
  walk(patch, []);
  return out;
}

function prefixes(named: Named, segments: PathSegment[]): boolean {
  if (named.length > segments.length) return false;
  return named.every((n, i) => {
    const s = segments[i];
    if (n === '*') return !('key' in s);
    if (typeof n === 'string') return 'key' in s && s.key === n;
    return 'name' in s && s.name === n.name;
  });
}
