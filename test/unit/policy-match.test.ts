import { expect } from 'chai';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { PolicyConstraint } from '../../domain/orgdata/policy-constraint.js';
import { podSpecField, policyRefusal, policyViolations } from '../../domain/orgdata/policy-match.js';

const pod = (over: Record<string, unknown> = {}) => ({
  containers: [{ name: 'app', image: 'ghcr.io/acme/app:1' }],
  ...over,
});
const obj = (apiVersion: string, kind: string, spec: Record<string, unknown>, name = 'w'): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, namespace: 'shop' },
  spec,
});
const template = (p: Record<string, unknown>) => ({ template: { metadata: { labels: { app: 'w' } }, spec: p } });

/** Each pod-bearing kind, and custom resources whose pod template is found by shape. */
const carriers = (p: Record<string, unknown>): KubeObject[] => [
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'w', namespace: 'shop' }, spec: p },
  obj('apps/v1', 'Deployment', { replicas: 1, ...template(p) }),
  obj('apps/v1', 'StatefulSet', template(p)),
  obj('apps/v1', 'DaemonSet', template(p)),
  obj('apps/v1', 'ReplicaSet', template(p)),
  obj('batch/v1', 'Job', template(p)),
  obj('batch/v1', 'CronJob', { schedule: '* * * * *', jobTemplate: { spec: template(p) } }),
  obj('argoproj.io/v1alpha1', 'Rollout', { replicas: 1, ...template(p) }),
  obj('serving.knative.dev/v1', 'Service', template(p)),
];

const IMAGES: PolicyConstraint = { kind: 'Deployment', field: 'spec.template.spec.containers[].image', pattern: 'ghcr\\.io/acme/.*' };
const bad = 'evil.example/miner:latest';

describe('policies match by kind and by what the object runs, not by how the rule is spelled', () => {
  const table: { rule: PolicyConstraint; rest: string | undefined }[] = [
    { rule: IMAGES, rest: 'containers[].image' },
    { rule: { kind: 'Pod', field: 'spec.hostNetwork', allowedValues: [false] }, rest: 'hostNetwork' },
    { rule: { kind: 'CronJob', field: 'spec.jobTemplate.spec.template.spec.initContainers[].image', pattern: 'x' }, rest: 'initContainers[].image' },
    { rule: { kind: '*', field: 'spec.containers[].image', pattern: 'x' }, rest: 'containers[].image' },
    { rule: { kind: '*', field: 'spec.template.spec.volumes[].hostPath.path', pattern: 'x' }, rest: 'volumes[].hostPath.path' },
    { rule: { kind: 'Deployment', field: 'spec.replicas', maximum: 2 }, rest: undefined },
    { rule: { kind: '*', field: 'spec.replicas', maximum: 2 }, rest: undefined },
    { rule: { kind: 'Deployment', field: 'spec.template.metadata.labels.team', required: true }, rest: undefined },
    { rule: { kind: 'Service', field: 'spec.type', allowedValues: ['ClusterIP'] }, rest: undefined },
    { rule: { kind: 'Rollout', field: 'spec.template.spec.containers[].image', pattern: 'x' }, rest: undefined },
  ];
  for (const { rule, rest } of table)
    it(`${rule.kind} ${rule.field} is ${rest === undefined ? 'not a rule about pods' : `about pods (${rest})`}`, () => {
      expect(podSpecField(rule)).to.equal(rest);
    });

  const lists = ['containers', 'initContainers', 'ephemeralContainers'] as const;
  for (const list of lists)
    for (const carrier of carriers(pod({ [list]: [{ name: 'x', image: bad }] })))
      it(`an image rule written for Deployment containers catches ${list} in a ${carrier.apiVersion} ${carrier.kind}`, () => {
        const v = policyViolations([carrier], [IMAGES]);
        expect(v.map((x) => x.problem)).to.deep.equal([`must match ghcr\\.io/acme/.*, got "${bad}"`]);
        expect(v[0].field).to.match(new RegExp(`(^|\\.)${list}\\[x\\]\\.image$`));
      });

  for (const carrier of carriers(pod({ initContainers: [{ name: 'init', image: 'ghcr.io/acme/init:1' }] })))
    it(`a ${carrier.kind} whose every image follows the rule passes`, () => {
      expect(policyViolations([carrier], [IMAGES])).to.deep.equal([]);
    });

  it('required holds for each container that runs, not for one of them; ephemeral debug containers carry no resources', () => {
    const rule: PolicyConstraint = { kind: 'Deployment', field: 'spec.template.spec.containers[].resources.limits.memory', required: true };
    const d = obj(
      'apps/v1',
      'StatefulSet',
      template({
        containers: [
          { name: 'a', image: 'i', resources: { limits: { memory: '1Gi' } } },
          { name: 'b', image: 'i' },
        ],
        initContainers: [{ name: 'init', image: 'i' }],
        ephemeralContainers: [{ name: 'debug', image: 'i' }],
      }),
    );
    expect(policyViolations([d], [rule]).map((v) => v.field)).to.deep.equal([
      'spec.template.spec.containers[b].resources.limits.memory',
      'spec.template.spec.initContainers[init].resources.limits.memory',
    ]);
  });

  it('a pod-level rule (hostNetwork) written for Pods holds in a CronJob and a custom resource', () => {
    const rule: PolicyConstraint = { kind: 'Pod', field: 'spec.hostNetwork', allowedValues: [false] };
    const hostile = carriers(pod({ hostNetwork: true }));
    for (const o of hostile) expect(policyViolations([o], [rule]), o.kind).to.have.length(1);
  });

  it('a rule about pods does not concern an object that runs none (a ConfigMap), unless it names that kind', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' }, data: { a: '1' } };
    const required: PolicyConstraint = { kind: '*', field: 'spec.template.spec.containers[].resources.limits.memory', required: true };
    expect(policyViolations([cm], [required, IMAGES])).to.deep.equal([]);
    const emptyDeployment = obj('apps/v1', 'Deployment', { template: { spec: { containers: [] } } });
    expect(policyViolations([emptyDeployment], [{ ...required, kind: 'Deployment' }])).to.have.length(1);
  });

  it('rules that are not about pods apply by kind at their path: replicas on a Deployment, not on a StatefulSet or a ConfigMap', () => {
    const rule: PolicyConstraint = { kind: 'Deployment', field: 'spec.replicas', maximum: 2 };
    expect(policyViolations([obj('apps/v1', 'Deployment', { replicas: 9, ...template(pod()) })], [rule])).to.have.length(1);
    expect(policyViolations([obj('apps/v1', 'StatefulSet', { replicas: 9, ...template(pod()) })], [rule])).to.deep.equal([]);
  });

  it('policyRefusal names the policy, the object and each broken rule', () => {
    const d = obj('apps/v1', 'Deployment', { replicas: 9, ...template(pod({ initContainers: [{ name: 'i', image: bad }] })) }, 'web');
    const refusal = policyRefusal(d, [
      { id: 'p-1', description: 'Images come from ghcr.io/acme', constraints: [IMAGES] },
      { id: 'p-2', description: 'At most 2 replicas', constraints: [{ kind: 'Deployment', field: 'spec.replicas', maximum: 2 }] },
      { id: 'p-3', description: 'Services are internal', constraints: [{ kind: 'Service', field: 'spec.type', allowedValues: ['ClusterIP'] }] },
    ]);
    expect(refusal).to.equal(
      `Deployment web would break policy "Images come from ghcr.io/acme" (p-1): spec.template.spec.initContainers[i].image must match ghcr\\.io/acme/.*, got "${bad}" and policy "At most 2 replicas" (p-2): spec.replicas must be at most 2, got 9`,
    );
  });
});
