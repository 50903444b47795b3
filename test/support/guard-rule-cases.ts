import type { RiskLevel } from '../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { at, deployment, DEPLOYMENT, obj, type Judged } from './write-guard-kit.js';

/** One case of a rule of the write guard's table (test/unit/write-guard-rules.test.ts). */
export interface Case {
  rule: string;
  name: string;
  judged: Judged;
  risk: RiskLevel;
  /** A reason that must be there (the rule applied) or must not (`absent`: the rule did not apply). */
  reason?: RegExp;
  absent?: RegExp;
}

export const spec = (o: KubeObject) => o.spec as Record<string, unknown>;
export const withSpec = (o: KubeObject, extra: Record<string, unknown>): KubeObject => ({ ...o, spec: { ...spec(o), ...extra } });
export const created = (target: Judged['target'], result: KubeObject): Judged => ({ target, live: null, result });
export const changed = (target: Judged['target'], live: KubeObject, result: KubeObject): Judged => ({ target, live, result });
export const cm = (data: Record<string, string> = { a: '1' }, meta: Record<string, unknown> = {}) => obj('v1', 'ConfigMap', { data }, meta);
export const CM = at('', 'ConfigMap');
export const cmCase = (rule: string, absent: RegExp): Case => ({
  rule,
  name: 'a ConfigMap is not that kind',
  judged: changed(CM, cm(), cm({ a: '2' })),
  risk: 'medium',
  absent,
});
export const sensitive = (rule: string, target: Judged['target'], o: KubeObject, reason: RegExp): Case[] => [
  { rule, name: `${o.kind} is claimed: high`, judged: created(target, o), risk: 'high', reason },
  cmCase(rule, reason),
];
export const svc = (s: Record<string, unknown> = {}) =>
  obj('v1', 'Service', { spec: { type: 'ClusterIP', selector: { app: 'web' }, ports: [{ port: 80 }], ...s } });
export const SVC = at('', 'Service');
export const hpa = (s: Record<string, unknown> = {}) =>
  obj('autoscaling/v2', 'HorizontalPodAutoscaler', {
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5, ...s },
  });
export const HPA = at('autoscaling', 'HorizontalPodAutoscaler');
export const pvc = (storage = '10Gi', s: Record<string, unknown> = {}) =>
  obj('v1', 'PersistentVolumeClaim', { spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', resources: { requests: { storage } }, ...s } });
export const PVC = at('', 'PersistentVolumeClaim');
export const cron = (s: Record<string, unknown> = {}) =>
  obj('batch/v1', 'CronJob', {
    spec: {
      schedule: '0 6 * * *',
      jobTemplate: { spec: { backoffLimit: 2, template: { spec: { containers: [{ name: 'a', image: 'ghcr.io/a:1' }] } } } },
      ...s,
    },
  });
export const CRON = at('batch', 'CronJob');
export const sts = (s: Record<string, unknown> = {}) => ({ ...deployment(), kind: 'StatefulSet', spec: { ...spec(deployment()), serviceName: 'web', ...s } });
export const STS = at('apps', 'StatefulSet');
export const dep = (...a: Parameters<typeof deployment>) => changed(DEPLOYMENT, deployment(), deployment(...a));
/** A pod field the patch removes by name (a null in a merge patch): what the field's rule makes of it being unset. */
export const unset = (field: string, value: unknown): Judged => ({
  ...changed(DEPLOYMENT, deployment({ [field]: value }), deployment()),
  write: { verb: 'patch', patchType: 'strategic', patch: { spec: { template: { spec: { [field]: null } } } } },
});
export const depSpec = (extra: Record<string, unknown>) => changed(DEPLOYMENT, deployment(), withSpec(deployment(), extra));
export const knative = (s: Record<string, unknown> = {}) =>
  obj('serving.knative.dev/v1', 'Service', {
    spec: { template: { spec: { containers: [{ image: 'ghcr.io/a:1' }] } }, traffic: [{ latestRevision: true, percent: 100 }], ...s },
  });
export const KSVC = at('serving.knative.dev', 'Service');
export const BUILD = at('acme.io', 'BuildJob');
export const STATED = { kindRisks: [{ group: 'acme.io', kind: 'BuildJob', risk: 'low' as const }] };
export const build = (s: Record<string, unknown>) => obj('acme.io/v1', 'BuildJob', { spec: { queue: 'a', ...s } });
