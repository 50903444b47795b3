import { expect } from 'chai';
import { kindMatches } from '../../../../domain/write-guard/rules/field-rule.js';
import { WORKLOAD_RULES } from '../../../../domain/write-guard/rules/workload-rules.js';
import { ruleCases, type RuleCase } from '../../../support/rule-input.js';

const CASES: RuleCase[] = [
  { name: 'more replicas', path: 'spec.replicas', from: 2, to: 5, rule: 'workload.replicas', risk: 'low' },
  { name: 'fewer replicas', path: 'spec.replicas', from: 5, to: 2, rule: 'workload.replicas', risk: 'medium', reason: /5 -> 2/ },
  { name: 'zero replicas', path: 'spec.replicas', from: 5, to: 0, rule: 'workload.replicas', risk: 'high', reason: /to zero replicas/ },
  // the number written as a string is still zero
  { name: 'zero replicas as a string', path: 'spec.replicas', from: 5, to: '0', rule: 'workload.replicas', risk: 'high' },
  { name: 'created at zero', path: 'spec.replicas', to: 0, created: true, rule: 'workload.replicas', risk: 'high' },
  { name: 'created with replicas', path: 'spec.replicas', to: 3, created: true, rule: 'workload.replicas', risk: 'low' },
  { name: 'replicas unset', path: 'spec.replicas', from: 5, rule: 'workload.replicas', risk: 'medium' },
  { name: 'a selector set on create', path: 'spec.selector.matchLabels.app', to: 'web', created: true, rule: 'workload.selector', risk: 'low' },
  { name: 'a selector changed', path: 'spec.selector.matchLabels.app', from: 'web', to: 'db', rule: 'workload.selector', risk: 'high', reason: /which pods/ },
  { name: 'max surge', path: 'spec.strategy.rollingUpdate.maxSurge', from: '25%', to: '50%', rule: 'workload.surge', risk: 'low' },
  { name: 'the default strategy written out', path: 'spec.strategy.type', to: 'RollingUpdate', rule: 'workload.rollout', risk: 'low' },
  { name: 'the strategy changed to Recreate', path: 'spec.strategy.type', from: 'RollingUpdate', to: 'Recreate', rule: 'workload.rollout', risk: 'medium' },
  // the default value only passes where the field was unset: from another value it is a change
  {
    name: 'max unavailable back to 25%',
    path: 'spec.strategy.rollingUpdate.maxUnavailable',
    from: '100%',
    to: '25%',
    rule: 'workload.rollout',
    risk: 'medium',
  },
  { name: 'paused', path: 'spec.paused', to: true, rule: 'workload.rollout', risk: 'medium' },
  { name: "a template's name", path: 'spec.template.metadata.name', to: 'x', rule: 'workload.template', risk: 'medium' },
  {
    name: "a StatefulSet's service name changed",
    kind: 'StatefulSet',
    path: 'spec.serviceName',
    from: 'a',
    to: 'b',
    rule: 'statefulset.identity',
    risk: 'high',
  },
  {
    name: "a StatefulSet's claims on create",
    kind: 'StatefulSet',
    path: 'spec.volumeClaimTemplates[0].spec.resources.requests.storage',
    to: '1Gi',
    created: true,
    rule: 'statefulset.identity',
    risk: 'medium',
  },
  {
    name: 'claims retained',
    kind: 'StatefulSet',
    path: 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted',
    to: 'Retain',
    rule: 'statefulset.retention',
    risk: 'low',
  },
  {
    name: 'claims deleted with the pods',
    kind: 'StatefulSet',
    path: 'spec.persistentVolumeClaimRetentionPolicy.whenScaled',
    to: 'Delete',
    rule: 'statefulset.retention',
    risk: 'high',
  },
  { name: 'a job suspended', kind: 'Job', path: 'spec.suspend', to: true, rule: 'job.run', risk: 'medium' },
  { name: "a cron job's job backoff", kind: 'CronJob', path: 'spec.jobTemplate.spec.backoffLimit', from: 2, to: 6, rule: 'cronjob.run', risk: 'medium' },
  { name: 'a schedule', kind: 'CronJob', path: 'spec.schedule', from: '0 6 * * *', to: '0 7 * * *', rule: 'cronjob.schedule', risk: 'low' },
  { name: 'a workload field the rules do not know', path: 'spec.replicaz', to: 0, rule: undefined },
  { name: "a template's pod spec (the pod rules judge it)", path: 'spec.template.spec.hostNetwork', to: true, rule: undefined },
];

describe('write guard rules: workloads and jobs', () => {
  ruleCases(WORKLOAD_RULES, CASES);

  it('a DaemonSet has no replicas to scale; an Argo Rollout does', () => {
    const replicas = WORKLOAD_RULES.find((r) => r.id === 'workload.replicas')!;
    expect(replicas.kinds!.some((k) => kindMatches(k, 'apps', 'DaemonSet'))).to.equal(false);
    expect(replicas.kinds!.some((k) => kindMatches(k, 'argoproj.io', 'Rollout'))).to.equal(true);
    // a custom kind named like a workload is not one
    expect(replicas.kinds!.some((k) => kindMatches(k, 'acme.io', 'Deployment'))).to.equal(false);
  });
});
