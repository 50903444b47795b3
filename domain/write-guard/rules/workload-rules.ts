import { fixed, kinds, verdict, type FieldRule, type KindRef, type RuleInput } from './field-rule.js';

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined);

/** Replicas: more is low, fewer medium, none high (nothing serves). A create sets them. */
function replicas(i: RuleInput) {
  const to = num(i.change.to);
  const from = num(i.change.from);
  if (to === 0 && from !== 0) return verdict('high', `scales ${i.kind} to zero replicas (${i.shown})`);
  if (i.created || (to !== undefined && from !== undefined && to >= from)) return verdict('low');
  return verdict('medium', `fewer replicas for ${i.kind} (${String(i.change.from)} -> ${String(i.change.to)}): less capacity`);
}

/** Set when created, high when changed after: what the object selects or owns. */
const onCreate = (risk: 'low' | 'medium', words: string) => (i: RuleInput) => (i.created ? verdict(risk) : fixed('high', words)(i));

const WORKLOADS: KindRef[] = [
  ...kinds('apps', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'),
  ...kinds('', 'ReplicationController'),
  ...kinds('argoproj.io', 'Rollout'),
];
const SCALED = WORKLOADS.filter((k) => k.kind !== 'DaemonSet');
/** What the API server sets where a rollout field is unset: the same behaviour, written out. */
const ROLLOUT_DEFAULTS: Record<string, unknown> = {
  type: 'RollingUpdate',
  maxUnavailable: '25%',
  partition: 0,
  minReadySeconds: 0,
  paused: false,
  podManagementPolicy: 'OrderedReady',
};
const JOB_FIELDS = [
  'parallelism',
  'completions',
  'backoffLimit',
  'backoffLimitPerIndex',
  'maxFailedIndexes',
  'activeDeadlineSeconds',
  'ttlSecondsAfterFinished',
  'completionMode',
  'podFailurePolicy.**',
  'successPolicy.**',
  'podReplacementPolicy',
  'suspend',
];
const JOB = kinds('batch', 'Job');
const CRONJOB = kinds('batch', 'CronJob');

/** Workloads and jobs: replicas, rollout settings, selectors; their pod templates are pod rules (at least medium). */
export const WORKLOAD_RULES: FieldRule[] = [
  {
    id: 'workload.replicas',
    area: 'Workloads',
    scope: 'object',
    kinds: SCALED,
    paths: ['spec.replicas'],
    safe: 'more replicas: low; fewer: medium; zero: high',
    judge: replicas,
  },
  {
    id: 'workload.selector',
    area: 'Workloads',
    scope: 'object',
    kinds: [...WORKLOADS, ...JOB],
    paths: [
      'spec.selector.matchLabels.*',
      'spec.selector.matchExpressions[].{key,operator,values}',
      'spec.selector.matchExpressions[].values[]',
      'spec.manualSelector',
    ],
    safe: 'set when created; changed after: high (which pods it owns)',
    judge: onCreate('low', 'changes which pods the workload owns'),
  },
  {
    id: 'workload.surge',
    area: 'Workloads',
    scope: 'object',
    kinds: WORKLOADS,
    paths: ['spec.strategy.rollingUpdate.maxSurge', 'spec.updateStrategy.rollingUpdate.maxSurge', 'spec.revisionHistoryLimit', 'spec.progressDeadlineSeconds'],
    safe: 'low (extra pods during a rollout, history kept, when a stuck rollout is reported)',
    judge: fixed('low'),
  },
  {
    id: 'workload.rollout',
    area: 'Workloads',
    scope: 'object',
    kinds: WORKLOADS,
    paths: [
      'spec.{strategy,updateStrategy}.type',
      'spec.{strategy,updateStrategy}.rollingUpdate.{maxUnavailable,partition}',
      'spec.minReadySeconds',
      'spec.paused',
      'spec.podManagementPolicy',
      'spec.ordinals.start',
    ],
    safe: 'the API default set where unset (RollingUpdate, 25% unavailable, OrderedReady, 0, false, partition 0): low; anything else: medium (how many pods may be down, and when pods are replaced)',
    judge: (i) =>
      i.change.from === undefined && ROLLOUT_DEFAULTS[i.path.at(-1)!] === i.change.to ? verdict('low') : fixed('medium', 'changes how pods are replaced')(i),
  },
  {
    id: 'workload.template',
    area: 'Workloads',
    scope: 'object',
    kinds: [...WORKLOADS, ...JOB, ...CRONJOB, ...kinds('serving.knative.dev', 'Service')],
    paths: [
      'spec.template.metadata.{name,namespace,generateName}',
      'spec.jobTemplate.metadata.{name,namespace,generateName}',
      'spec.jobTemplate.spec.template.metadata.{name,namespace,generateName}',
    ],
    safe: "medium: a template's own metadata (the pod rules below judge its pod spec, labels and annotations)",
    judge: fixed('medium', 'changes the pod template: pods are replaced'),
  },
  {
    id: 'statefulset.identity',
    area: 'Workloads',
    scope: 'object',
    kinds: kinds('apps', 'StatefulSet'),
    paths: ['spec.serviceName', 'spec.volumeClaimTemplates.**'],
    safe: 'set when created; changed after: high (new claims, a new network identity)',
    judge: onCreate('medium', 'changes the claims or the network identity of its pods'),
  },
  {
    id: 'statefulset.retention',
    area: 'Workloads',
    scope: 'object',
    kinds: kinds('apps', 'StatefulSet'),
    paths: ['spec.persistentVolumeClaimRetentionPolicy.*'],
    safe: 'Retain: low; Delete: high (claims deleted with the pods)',
    judge: (i) => (i.change.to === undefined || i.change.to === 'Retain' ? verdict('low') : fixed('high', 'deletes the claims with the pods')(i)),
  },
  {
    id: 'job.run',
    area: 'Jobs',
    scope: 'object',
    kinds: JOB,
    paths: JOB_FIELDS.map((f) => `spec.${f}`),
    safe: 'medium (how many pods run, for how long; suspend)',
    judge: fixed('medium', 'changes how the job runs'),
  },
  {
    id: 'cronjob.run',
    area: 'Jobs',
    scope: 'object',
    kinds: CRONJOB,
    paths: [...JOB_FIELDS.map((f) => `spec.jobTemplate.spec.${f}`), 'spec.suspend'],
    safe: 'medium (how its jobs run; suspended, none run)',
    judge: fixed('medium', 'changes whether or how its jobs run'),
  },
  {
    id: 'cronjob.schedule',
    area: 'Jobs',
    scope: 'object',
    kinds: CRONJOB,
    paths: [
      'spec.schedule',
      'spec.timeZone',
      'spec.concurrencyPolicy',
      'spec.startingDeadlineSeconds',
      'spec.successfulJobsHistoryLimit',
      'spec.failedJobsHistoryLimit',
    ],
    safe: 'low (when its jobs run, history kept)',
    judge: fixed('low'),
  },
];
