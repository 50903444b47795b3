import { expect } from 'chai';
import { clusterFunctions } from '../../application/ai/cluster-functions.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { summarizeObject } from '../../domain/cluster/object-summary.js';
import { isConstraintPath, valuesAt } from '../../domain/orgdata/policy-constraint.js';
import { policyViolations } from '../../domain/orgdata/policy-match.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

const deploy = (image: string, replicas: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    replicas,
    template: {
      spec: {
        containers: [
          { name: 'a', image },
          { name: 'b', image: 'redis:7' },
        ],
      },
    },
  },
});

describe('policy constraints', () => {
  it('walk arrays with [] and report each violation with its object and field', () => {
    expect(valuesAt(deploy('nginx:1', 1), 'spec.template.spec.containers[].image')).to.deep.equal(['nginx:1', 'redis:7']);
    expect(valuesAt(deploy('nginx:1', 1), 'spec.missing.x')).to.deep.equal([]);
    const v = policyViolations(
      [deploy('docker.io/nginx:1', 9)],
      [
        {
          kind: 'Deployment',
          field: 'spec.template.spec.containers[].image',
          pattern: 'registry\\.corp/.*',
          message: 'images come from the corporate registry',
        },
        { kind: '*', field: 'spec.replicas', maximum: 5 },
        { kind: 'Deployment', field: 'metadata.labels.team', required: true },
        { kind: 'Service', field: 'spec.type', allowedValues: ['ClusterIP'] },
      ],
    );
    expect(v.map((x) => `${x.object} ${x.field}: ${x.problem}`)).to.deep.equal([
      'Deployment shop/web spec.template.spec.containers[a].image: images come from the corporate registry (must match registry\\.corp/.*, got "docker.io/nginx:1")',
      'Deployment shop/web spec.template.spec.containers[b].image: images come from the corporate registry (must match registry\\.corp/.*, got "redis:7")',
      'Deployment shop/web spec.replicas: must be at most 5, got 9',
      'Deployment shop/web metadata.labels.team: is required',
    ]);
    expect(isConstraintPath('spec.template.spec.containers[].image')).to.equal(true);
    expect(isConstraintPath('spec..x')).to.equal(false);
    expect(isConstraintPath('')).to.equal(false);
  });
});

describe('object summaries and the model functions', () => {
  it('say what is wrong in one line', () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-1', namespace: 'shop' },
      status: {
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'web',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'ImagePullBackOff' } },
            lastState: { terminated: { reason: 'OOMKilled', exitCode: 137 } },
          },
        ],
      },
    };
    expect(summarizeObject(pod)).to.equal(
      'Pod shop/web-1: phase Pending, ready 0/1, restarts 3, web waiting: ImagePullBackOff, web last terminated: OOMKilled (exit 137)',
    );
    const d = {
      ...deploy('x', 3),
      status: {
        readyReplicas: 1,
        updatedReplicas: 3,
        availableReplicas: 1,
        conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' }],
      },
    };
    expect(summarizeObject(d)).to.equal('Deployment shop/web: ready 1/3, updated 3, available 1, Available=False (MinimumReplicasUnavailable)');
  });

  it('are read-only, validate the model arguments and answer in compact text', async () => {
    const cluster = new FakeCluster().put(deploy('nginx:1', 2));
    const fns = new Map(clusterFunctions(cluster).map((f) => [f.spec.name, f]));
    expect([...fns.keys()]).to.deep.equal(['list_api_resources', 'list_resources', 'get_resource', 'describe_resource', 'list_events', 'get_pod_logs']);
    const signal = new AbortController().signal;
    expect(await fns.get('list_resources')!.run({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop' }, signal)).to.equal(
      'Deployment shop/web: ready 0/2, updated 0, available 0',
    );
    const bad = await fns
      .get('get_resource')!
      .run({ kind: 'Deployment', name: 'web', extra: 1 }, signal)
      .catch((e: Error) => e.message);
    expect(bad).to.match(/^invalid arguments: apiVersion: .*; \(root\): Unrecognized key: "extra"/);
    expect(cluster.writes).to.deep.equal([]);
    expect(cluster.calls.every((c) => ['list', 'get'].includes(c))).to.equal(true);
  });
});
