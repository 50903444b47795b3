import { expect } from 'chai';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import {
  judgeable,
  judgeWorkload,
  overallHealth,
  type ContainerObservation,
  type Health,
  type WarningObservation,
  type WorkloadObservation,
} from '../../domain/cluster/workload-health.js';

const WEB = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };
const SVC = { apiVersion: 'v1', kind: 'Service', name: 'web', namespace: 'x' };
const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'x' };

type Status = Record<string, unknown>;
const done: Status = {
  observedGeneration: 2,
  replicas: 2,
  updatedReplicas: 2,
  readyReplicas: 2,
  availableReplicas: 2,
  conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }],
};
const rolling: Status = { observedGeneration: 2, replicas: 3, updatedReplicas: 1, readyReplicas: 2, availableReplicas: 2 };
const shrunk: Status = { observedGeneration: 2, replicas: 3, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 };
const deadline: Status = {
  ...rolling,
  conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "web-1" has timed out progressing.' }],
};
const deploy = (status: Status): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'x', generation: 2 },
  spec: { replicas: 2, selector: { matchLabels: { app: 'web' } } },
  status,
});
const ok = (pod: string, restarts = 0): ContainerObservation => ({ pod, container: 'web', restarts });
const obs = (status: Status, containers: ContainerObservation[] = [], warnings: WarningObservation[] = []): WorkloadObservation => ({
  object: deploy(status),
  containers,
  warnings,
});
const warning = (object: string, reason = 'BackOff', count = 1): WarningObservation => ({
  object,
  reason,
  message: 'Back-off restarting failed container',
  count,
});

interface Row {
  name: string;
  before: WorkloadObservation | undefined;
  after: WorkloadObservation;
  windowOver?: boolean;
  health: Health;
  final: boolean;
  evidence?: RegExp;
}

const rows: Row[] = [
  { name: 'rolled out, containers fine: healthy', before: obs(done, [ok('web-a')]), after: obs(done, [ok('web-b')]), health: 'healthy', final: false },
  {
    name: 'ProgressDeadlineExceeded: degraded at once, not waited for',
    before: obs(done),
    after: obs(deadline),
    health: 'degraded',
    final: true,
    evidence: /rollout failed: ReplicaSet "web-1" has timed out progressing/,
  },
  ...(['CrashLoopBackOff', 'ImagePullBackOff', 'CreateContainerConfigError'] as const).map((reason): Row => ({
    name: `a new pod waiting in ${reason}: degraded`,
    before: obs(done, [ok('web-a')]),
    after: obs(rolling, [ok('web-a'), { ...ok('web-b'), waiting: reason }]),
    health: 'degraded',
    final: true,
    evidence: new RegExp(`container web of pod web-b is waiting in ${reason}`),
  })),
  {
    name: 'OOMKilled with a restart: degraded',
    before: obs(done, [ok('web-a')]),
    after: obs(done, [{ ...ok('web-a', 1), lastTerminated: 'OOMKilled' }]),
    health: 'degraded',
    final: true,
    evidence: /web-a was OOMKilled \(1 restarts\)/,
  },
  {
    name: 'a container that was fine restarted: degraded',
    before: obs(done, [ok('web-a', 2)]),
    after: obs(done, [ok('web-a', 3)]),
    health: 'degraded',
    final: true,
    evidence: /restarted 1 time\(s\) since the change/,
  },
  {
    name: 'restarts counted before the change do not count again',
    before: obs(done, [ok('web-a', 4)]),
    after: obs(done, [ok('web-a', 4)]),
    health: 'healthy',
    final: false,
  },
  {
    name: 'a pod failing before the change that still fails is not worse',
    before: obs(rolling, [{ ...ok('web-a', 5), waiting: 'CrashLoopBackOff' }], [warning('Pod web-a', 'BackOff', 5)]),
    after: obs(rolling, [{ ...ok('web-a', 6), waiting: 'CrashLoopBackOff' }], [warning('Pod web-a', 'BackOff', 6)]),
    health: 'unknown',
    final: false,
  },
  {
    name: 'ErrImagePull alone is not yet a failure (the pull is retried)',
    before: obs(done),
    after: obs(rolling, [{ ...ok('web-b'), waiting: 'ErrImagePull' }]),
    health: 'unknown',
    final: false,
  },
  {
    name: 'a new Warning on a pod while the rollout runs: degraded',
    before: obs(done),
    after: obs(rolling, [], [warning('Pod web-b', 'Failed')]),
    health: 'degraded',
    final: true,
    evidence: /Warning Failed on Pod web-b/,
  },
  {
    name: 'a Warning that repeats (its count rose) is new',
    before: obs(done, [], [warning('Deployment web', 'FailedCreate', 1)]),
    after: obs(done, [], [warning('Deployment web', 'FailedCreate', 2)]),
    health: 'degraded',
    final: true,
    evidence: /Warning FailedCreate on Deployment web: .* \(x2\)/,
  },
  {
    name: 'the same Warning as before (same count) is not new',
    before: obs(done, [], [warning('Deployment web', 'FailedCreate', 3)]),
    after: obs(done, [], [warning('Deployment web', 'FailedCreate', 3)]),
    health: 'healthy',
    final: false,
  },
  {
    name: "a pod's Warning once the workload is all there (probe noise of a start) does not count",
    before: obs(done),
    after: obs(done, [ok('web-b')], [warning('Pod web-b', 'Unhealthy')]),
    health: 'healthy',
    final: false,
  },
  {
    name: 'a controller Warning counts even when rolled out',
    before: obs(done),
    after: obs(done, [], [warning('ReplicaSet web-1', 'FailedCreate')]),
    health: 'degraded',
    final: true,
  },
  { name: 'still rolling within the window: unknown, not final', before: obs(done), after: obs(rolling), health: 'unknown', final: false },
  {
    name: 'still rolling at the end of the window with fewer available than before: degraded',
    before: obs(done),
    after: obs(shrunk),
    windowOver: true,
    health: 'degraded',
    final: true,
    evidence: /1 replicas available, 2 before the change/,
  },
  {
    name: 'still rolling at the end of the window, as many available: unknown',
    before: obs(done),
    after: obs(rolling),
    windowOver: true,
    health: 'unknown',
    final: false,
    evidence: /not rolled out yet/,
  },
  {
    name: 'created by the change (no snapshot), rolled out: healthy',
    before: undefined,
    after: obs(done, [ok('web-a')]),
    health: 'healthy',
    final: false,
  },
  {
    name: 'an object that could not be read: unknown',
    before: obs(done),
    after: { object: null, containers: [], warnings: [], error: 'the API server did not answer' },
    health: 'unknown',
    final: false,
    evidence: /could not be read: the API server did not answer/,
  },
  { name: 'an object gone: unknown', before: obs(done), after: { object: null, containers: [], warnings: [] }, health: 'unknown', final: false },
];

const service = (endpoints: number | undefined, selector: Record<string, string> = { app: 'web' }): WorkloadObservation => ({
  object: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'x' }, spec: { selector } },
  containers: [],
  warnings: [],
  ...(endpoints === undefined ? {} : { endpoints }),
});
const widget = (ready: string | undefined): WorkloadObservation => ({
  object: {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'x' },
    status: { conditions: ready ? [{ type: 'Ready', status: ready, reason: 'Reconciled', message: 'backend down' }] : [] },
  },
  containers: [],
  warnings: [],
});

describe('workload-health: the deterministic verdict on a changed object', () => {
  for (const r of rows)
    it(r.name, () => {
      const j = judgeWorkload(WEB, r.before, r.after, r.windowOver ?? false);
      expect(j.health).to.equal(r.health);
      expect(j.final).to.equal(r.final);
      if (r.evidence) expect(j.evidence.join('\n')).to.match(r.evidence);
    });

  const services: [string, WorkloadObservation | undefined, WorkloadObservation, Health][] = [
    ['a Service with ready endpoints: healthy', service(2), service(1), 'healthy'],
    ['a Service that lost every endpoint: degraded', service(2), service(0), 'degraded'],
    ['a Service that had none and has none: unknown', service(0), service(0), 'unknown'],
    ['endpoints not readable: unknown', service(2), service(undefined), 'unknown'],
    ['no selector: its endpoints are not svc to judge', service(2, {}), service(0, {}), 'healthy'],
  ];
  for (const [name, before, after, health] of services)
    it(name, () => {
      expect(judgeWorkload(SVC, before, after, true).health).to.equal(health);
    });

  const widgets: [string, WorkloadObservation | undefined, WorkloadObservation, boolean, Health][] = [
    ['a custom resource Ready True: healthy', widget('True'), widget('True'), false, 'healthy'],
    ['Ready True before, False now: degraded', widget('True'), widget('False'), false, 'degraded'],
    ['created False: unknown while the window runs', undefined, widget('False'), false, 'unknown'],
    ['created and still False when the window ends: degraded', undefined, widget('False'), true, 'degraded'],
    ['no Ready condition: unknown', widget('True'), widget(undefined), true, 'unknown'],
  ];
  for (const [name, before, after, windowOver, health] of widgets)
    it(name, () => {
      expect(judgeWorkload(WIDGET, before, after, windowOver).health).to.equal(health);
    });

  it('judges workloads, Services and objects with conditions; not a ConfigMap', () => {
    expect(['Deployment', 'StatefulSet', 'DaemonSet', 'Service'].map((k) => judgeable(k, null))).to.deep.equal([true, true, true, true]);
    expect(judgeable('ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } })).to.equal(false);
    expect(judgeable('Widget', widget('True').object)).to.equal(true);
  });

  it('overall: degraded wins, then unknown; nothing judged is unknown', () => {
    expect(overallHealth([{ health: 'healthy' }, { health: 'degraded' }, { health: 'unknown' }])).to.equal('degraded');
    expect(overallHealth([{ health: 'healthy' }, { health: 'unknown' }])).to.equal('unknown');
    expect(overallHealth([{ health: 'healthy' }, { health: 'healthy' }])).to.equal('healthy');
    expect(overallHealth([])).to.equal('unknown');
  });
});
