import { asJsonObject } from '../../json-object.js';
import { fixed, kinds, verdict, type FieldRule, type RuleInput } from './field-rule.js';

const HPA = kinds('autoscaling', 'HorizontalPodAutoscaler');
const PVC = kinds('', 'PersistentVolumeClaim');

/** A quantity in bytes (`10Gi`, `500M`, `1e9`), or undefined. */
export function bytes(q: unknown): number | undefined {
  if (typeof q === 'number') return q;
  const m = typeof q === 'string' ? /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/.exec(q) : undefined;
  if (!m) return undefined;
  const unit = m[2] ?? '';
  const power = 'KMGTPE'.indexOf((unit[0] ?? '').toUpperCase()) + 1;
  return Number(m[1]) * (unit.endsWith('i') ? 1024 : 1000) ** (unit ? power : 0);
}

/** An autoscaler's bound raised (more pods may or must run) is low; lowered, medium: less capacity. */
function raised(i: RuleInput) {
  const up = typeof i.change.to === 'number' && typeof i.change.from === 'number' && i.change.to >= i.change.from;
  return i.created || up
    ? verdict('low')
    : verdict('medium', `lowers the autoscaler's bound (${i.shown} ${String(i.change.from)} -> ${String(i.change.to)}): less capacity`);
}

/** The workload an autoscaler scales, as `Deployment web`. */
function scaled(i: RuleInput): string {
  const ref = asJsonObject(asJsonObject(i.result.spec).scaleTargetRef);
  return `${String(ref.kind)} ${String(ref.name)}`;
}

function storage(i: RuleInput) {
  const to = bytes(i.change.to);
  const from = bytes(i.change.from);
  if (i.created || (to !== undefined && from !== undefined && to >= from))
    return verdict('medium', i.created ? undefined : `grows the claim to ${String(i.change.to)}`);
  return verdict('high', `${i.kind} ${i.shown}: shrinks or unsets the claim's storage`);
}

/** Autoscaling, disruption budgets, configuration data, claims and quotas: availability and capacity are at least medium. */
export const CAPACITY_RULES: FieldRule[] = [
  {
    id: 'hpa.bounds',
    area: 'Availability',
    scope: 'object',
    kinds: HPA,
    paths: ['spec.minReplicas', 'spec.maxReplicas'],
    safe: 'raised: low; lowered: medium (less capacity)',
    judge: raised,
  },
  {
    id: 'hpa.signals',
    area: 'Availability',
    scope: 'object',
    kinds: HPA,
    paths: ['spec.metrics[].type', 'spec.metrics[].{resource,containerResource,pods,object,external}.**', 'spec.behavior.{scaleUp,scaleDown}.**'],
    safe: 'medium (when and how far it scales)',
    judge: fixed('medium', "changes the autoscaler's bounds or signals"),
  },
  {
    id: 'hpa.target',
    area: 'Availability',
    scope: 'object',
    kinds: HPA,
    paths: ['spec.scaleTargetRef.{apiVersion,kind,name}'],
    safe: 'set when created; changed after: high (it scales another workload)',
    judge: (i) => (i.created ? verdict('medium', `creates an autoscaler for ${scaled(i)}`) : fixed('high', 'points the autoscaler at another workload')(i)),
  },
  {
    id: 'pdb',
    area: 'Availability',
    scope: 'object',
    kinds: kinds('policy', 'PodDisruptionBudget'),
    paths: ['spec.{minAvailable,maxUnavailable,unhealthyPodEvictionPolicy}', 'spec.selector.matchLabels.*', 'spec.selector.matchExpressions[].**'],
    safe: 'medium (how many pods an eviction may take down)',
    judge: fixed('medium', 'changes how many pods may be evicted at once'),
  },
  {
    id: 'configmap.data',
    area: 'Configuration',
    scope: 'object',
    kinds: kinds('', 'ConfigMap'),
    paths: ['data.*', 'binaryData.*', 'immutable'],
    safe: "medium (the workload reading it changes behaviour when it reads it again; a Secret's data is a sensitive kind)",
    judge: fixed('medium', 'changes configuration a workload reads'),
  },
  {
    id: 'pvc.storage',
    area: 'Storage',
    scope: 'object',
    kinds: PVC,
    paths: ['spec.resources.requests.storage'],
    safe: 'grown: medium; shrunk: high',
    judge: storage,
  },
  {
    id: 'pvc.provisioning',
    area: 'Storage',
    scope: 'object',
    kinds: PVC,
    paths: ['spec.accessModes[]', 'spec.{accessModes,volumeMode,storageClassName,volumeAttributesClassName}', 'spec.resources.{limits,requests}.*'],
    safe: 'set when created: medium; changed after: high',
    judge: (i) =>
      i.created
        ? verdict('medium', `creates claim ${i.result.metadata.name}: storage is provisioned for it`)
        : fixed('high', 'changes how the claim is provisioned')(i),
  },
  {
    id: 'quota',
    area: 'Capacity',
    scope: 'object',
    kinds: [...kinds('', 'ResourceQuota', 'LimitRange')],
    paths: [
      'spec.hard.*',
      'spec.scopes[]',
      'spec.scopeSelector.matchExpressions[].**',
      'spec.limits[].type',
      'spec.limits[].{max,min,default,defaultRequest,maxLimitRequestRatio}.*',
    ],
    safe: 'medium (what the namespace may use)',
    judge: fixed('medium', 'changes what the namespace may use'),
  },
];
