import { expect } from 'chai';
import { bytes, CAPACITY_RULES } from '../../../../domain/write-guard/rules/capacity-rules.js';
import { ruleCases, type RuleCase } from '../../../support/rule-input.js';

const HPA = { kind: 'HorizontalPodAutoscaler' };
const PVC = { kind: 'PersistentVolumeClaim' };
const hpaResult = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } },
};

const CASES: RuleCase[] = [
  { name: 'an autoscaler minimum raised', ...HPA, path: 'spec.minReplicas', from: 2, to: 3, rule: 'hpa.bounds', risk: 'low' },
  { name: 'an autoscaler maximum lowered', ...HPA, path: 'spec.maxReplicas', from: 10, to: 4, rule: 'hpa.bounds', risk: 'medium', reason: /less capacity/ },
  // unset is not "raised": the bound falls back to the default
  { name: 'an autoscaler minimum unset', ...HPA, path: 'spec.minReplicas', from: 3, rule: 'hpa.bounds', risk: 'medium' },
  { name: 'an autoscaler created with bounds', ...HPA, path: 'spec.maxReplicas', to: 4, created: true, rule: 'hpa.bounds', risk: 'low' },
  {
    name: 'an autoscaler metric target',
    ...HPA,
    path: 'spec.metrics[0].resource.target.averageUtilization',
    from: 70,
    to: 90,
    rule: 'hpa.signals',
    risk: 'medium',
  },
  {
    name: 'an autoscaler scale-down behaviour',
    ...HPA,
    path: 'spec.behavior.scaleDown.stabilizationWindowSeconds',
    to: 0,
    rule: 'hpa.signals',
    risk: 'medium',
  },
  {
    name: 'an autoscaler created for a workload',
    ...HPA,
    path: 'spec.scaleTargetRef.name',
    to: 'web',
    created: true,
    result: hpaResult,
    rule: 'hpa.target',
    risk: 'medium',
    reason: /Deployment web/,
  },
  { name: 'an autoscaler pointed at another workload', ...HPA, path: 'spec.scaleTargetRef.name', from: 'web', to: 'db', rule: 'hpa.target', risk: 'high' },
  { name: 'a disruption budget', kind: 'PodDisruptionBudget', path: 'spec.minAvailable', from: 1, to: 0, rule: 'pdb', risk: 'medium' },
  { name: 'ConfigMap data', kind: 'ConfigMap', path: 'data.LOG_LEVEL', from: 'info', to: 'debug', rule: 'configmap.data', risk: 'medium' },
  { name: 'a claim grown', ...PVC, path: 'spec.resources.requests.storage', from: '10Gi', to: '20Gi', rule: 'pvc.storage', risk: 'medium', reason: /grows/ },
  // the same size in another unit is not a shrink
  { name: 'a claim rewritten in MiB', ...PVC, path: 'spec.resources.requests.storage', from: '1Gi', to: '1024Mi', rule: 'pvc.storage', risk: 'medium' },
  // 10G is less than 10Gi: a shrink hidden in the unit
  {
    name: 'a claim shrunk by its unit',
    ...PVC,
    path: 'spec.resources.requests.storage',
    from: '10Gi',
    to: '10G',
    rule: 'pvc.storage',
    risk: 'high',
    reason: /shrinks/,
  },
  { name: 'a claim shrunk', ...PVC, path: 'spec.resources.requests.storage', from: '20Gi', to: '10Gi', rule: 'pvc.storage', risk: 'high' },
  { name: "a claim's storage unset", ...PVC, path: 'spec.resources.requests.storage', from: '20Gi', rule: 'pvc.storage', risk: 'high' },
  { name: 'a claim with a size svc cannot read', ...PVC, path: 'spec.resources.requests.storage', from: '20Gi', to: 'lots', rule: 'pvc.storage', risk: 'high' },
  {
    name: 'a claim created',
    ...PVC,
    path: 'spec.storageClassName',
    to: 'fast',
    created: true,
    rule: 'pvc.provisioning',
    risk: 'medium',
    reason: /creates claim web/,
  },
  { name: "a claim's class changed", ...PVC, path: 'spec.storageClassName', from: 'standard', to: 'fast', rule: 'pvc.provisioning', risk: 'high' },
  { name: "a claim's access mode added", ...PVC, path: 'spec.accessModes[1]', to: 'ReadWriteMany', rule: 'pvc.provisioning', risk: 'high' },
  { name: 'a quota', kind: 'ResourceQuota', path: 'spec.hard["requests.cpu"]', from: '4', to: '8', rule: 'quota', risk: 'medium' },
  { name: 'a limit range', kind: 'LimitRange', path: 'spec.limits[0].max.memory', from: '1Gi', to: '2Gi', rule: 'quota', risk: 'medium' },
  // a field the rules do not name is left to the guard's "does not know" (high)
  { name: "a claim's unknown field", ...PVC, path: 'spec.dataSource.name', to: 'snap', rule: undefined },
  { name: "an autoscaler's unknown field", ...HPA, path: 'spec.scaleTargetRef.namespace', to: 'other', rule: undefined },
];

describe('write guard rules: capacity', () => {
  describe('bytes', () => {
    const table: [unknown, number | undefined][] = [
      ['10Gi', 10 * 1024 ** 3],
      ['10G', 10 * 1000 ** 3],
      ['1.5Ki', 1536],
      ['500M', 500e6],
      ['1Ei', 1024 ** 6],
      ['42', 42],
      [42, 42],
      ['10gi', undefined],
      ['10 Gi', undefined],
      ['-1Gi', undefined],
      ['', undefined],
      [undefined, undefined],
    ];
    for (const [q, n] of table) it(`${JSON.stringify(q)} is ${String(n)}`, () => expect(bytes(q)).to.equal(n));
  });

  describe('each rule, where it applies and where it does not', () => {
    // the rules are judged by kind by the guard; here every case's kind has these rules only
    ruleCases(
      CAPACITY_RULES.filter((r) => r.kinds?.length),
      CASES,
    );
  });

  it('claims only the kinds it names', () => {
    const kinds = new Set(CAPACITY_RULES.flatMap((r) => r.kinds ?? []).map((k) => `${k.group}/${k.kind}`));
    expect([...kinds].sort()).to.deep.equal([
      '/ConfigMap',
      '/LimitRange',
      '/PersistentVolumeClaim',
      '/ResourceQuota',
      'autoscaling/HorizontalPodAutoscaler',
      'policy/PodDisruptionBudget',
    ]);
  });
});
