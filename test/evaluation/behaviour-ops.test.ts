import { expect } from 'chai';
import { fieldCondition } from '../../domain/evaluation/scenario.js';
import { behaviourHolds } from '../../lab/sandbox/behaviour-conditions.js';
import { boundInPods, rolloutBounds } from '../../lab/sandbox/behaviour-ops.js';
import { KubeCluster, type Obj } from '../../lab/sandbox/kube/kube-cluster.js';

/** A cluster holding these objects as fixtures (nothing simulated). */
function cluster(...objects: Obj[]): KubeCluster {
  const c = new KubeCluster();
  for (const o of objects) c.put(structuredClone(o));
  return c;
}

const deployment = (name: string, spec: Obj, pod: Obj = {}): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'ops' },
  spec: {
    selector: { matchLabels: { app: name } },
    ...spec,
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: `${name}:1` }], ...pod } },
  },
});
const node = (name: string, labels: Record<string, string> = {}, taints: Obj[] = []): Obj => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  spec: { taints },
});
const configMap = (name: string, data: Record<string, string>): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ops' }, data });
const holds = (c: KubeCluster, cond: Obj, name: string) =>
  behaviourHolds(
    c,
    fieldCondition.parse(cond),
    [...c.objects.values()].find((o) => o.kind === 'Deployment' && o.metadata.name === name),
  );

describe('operate behaviour conditions: rollout bounds, spreading, spot nodes and variables from a ConfigMap judged by effect', () => {
  describe('rollout: the surge and unavailability the Deployment controller works with', () => {
    const frontend = (rollingUpdate: Obj | undefined, replicas = 4, type = 'RollingUpdate') =>
      deployment('frontend', { replicas, strategy: { type, ...(rollingUpdate ? { rollingUpdate } : {}) } });
    const judge = (d: Obj) => holds(cluster(d), { rollout: { maxSurge: 2, maxUnavailable: 0 } }, 'frontend');

    it('fails the broken surge of 1; passes 2, and 50% of 4 replicas (rounded up), with 0 or 0% unavailable', () => {
      expect(judge(frontend({ maxSurge: 1, maxUnavailable: 0 }))).to.equal(false);
      expect(judge(frontend({ maxSurge: 2, maxUnavailable: 0 }))).to.equal(true);
      expect(judge(frontend({ maxSurge: '50%', maxUnavailable: '0%' }))).to.equal(true);
      expect(judge(frontend({ maxSurge: '26%', maxUnavailable: 0 }))).to.equal(true);
    });

    it('fails a faster rollout that drops capacity, a surge of another size, the 25% default and a Recreate strategy', () => {
      expect(judge(frontend({ maxSurge: 2, maxUnavailable: 1 }))).to.equal(false);
      // 24% of 4 rounds down for maxUnavailable: 0 pods, so that one passes; 25% of 4 is one pod
      expect(judge(frontend({ maxSurge: 2, maxUnavailable: '24%' }))).to.equal(true);
      expect(judge(frontend({ maxSurge: 2, maxUnavailable: '25%' }))).to.equal(false);
      expect(judge(frontend({ maxSurge: '100%', maxUnavailable: 0 }))).to.equal(false);
      expect(judge(frontend(undefined))).to.equal(false);
      expect(judge(frontend(undefined, 4, 'Recreate'))).to.equal(false);
    });

    it('resolves bounds as the controller does: percentages of the replicas, one unavailable when both are 0, nothing for a value the API refuses', () => {
      expect(boundInPods('50%', 5, true)).to.equal(3);
      expect(boundInPods('50%', 5, false)).to.equal(2);
      expect(boundInPods('x%', 5, true)).to.equal(undefined);
      expect(rolloutBounds(frontend({ maxSurge: 0, maxUnavailable: 0 }))).to.deep.equal({ maxSurge: 0, maxUnavailable: 1 });
      expect(rolloutBounds(frontend(undefined, 10))).to.deep.equal({ maxSurge: 3, maxUnavailable: 2 });
    });
  });

  describe('spreads: the pods cannot all land on one node, and all still schedule', () => {
    const workers = [node('worker-1'), node('worker-2'), node('worker-3')];
    const own = { matchLabels: { app: 'gateway' } };
    const spread = (whenUnsatisfiable: string, maxSkew = 1, labelSelector: Obj | null = own) => ({
      topologySpreadConstraints: [{ maxSkew, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable, ...(labelSelector ? { labelSelector } : {}) }],
    });
    const anti = (kind: 'required' | 'preferred') => ({
      affinity: {
        podAntiAffinity:
          kind === 'required'
            ? { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: own }] }
            : {
                preferredDuringSchedulingIgnoredDuringExecution: [
                  { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: own } },
                ],
              },
      },
    });
    const judge = (pod: Obj, nodes: Obj[] = workers, replicas = 3) =>
      holds(cluster(...nodes, deployment('gateway', { replicas }, pod)), { spreads: {} }, 'gateway');

    it('fails the broken pods; passes a DoNotSchedule spread on the hostname and a required anti-affinity on it', () => {
      expect(judge({})).to.equal(false);
      expect(judge(spread('DoNotSchedule'))).to.equal(true);
      expect(judge(spread('DoNotSchedule', 2))).to.equal(true);
      expect(judge(anti('required'))).to.equal(true);
    });

    it('fails what does not make sure: ScheduleAnyway, a preferred anti-affinity, a skew as large as the replicas, a selector of other pods', () => {
      expect(judge(spread('ScheduleAnyway'))).to.equal(false);
      expect(judge(anti('preferred'))).to.equal(false);
      expect(judge(spread('DoNotSchedule', 3))).to.equal(false);
      expect(judge(spread('DoNotSchedule', 1, { matchLabels: { app: 'other' } }))).to.equal(false);
      expect(judge(spread('DoNotSchedule', 1, null))).to.equal(false);
    });

    it('fails an anti-affinity that leaves a pod Pending (fewer nodes than replicas), and any spread on one node', () => {
      expect(judge(anti('required'), workers.slice(0, 2))).to.equal(false);
      expect(judge(spread('DoNotSchedule'), workers.slice(0, 2))).to.equal(true);
      expect(judge(spread('DoNotSchedule'), workers.slice(0, 1))).to.equal(false);
      // a node the pods do not tolerate is no place to spread to
      const tainted = [...workers.slice(0, 2), node('worker-3', {}, [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }])];
      expect(judge(anti('required'), tainted)).to.equal(false);
    });
  });

  describe('schedules with someNodeLabels: the pods fit at least one Node carrying the labels', () => {
    const taint = { key: 'lifecycle', value: 'spot', effect: 'NoSchedule' };
    const gpu = node('gpu-1', { pool: 'gpu' }, [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }]);
    const nodes = [node('ondemand-1'), node('spot-1', { lifecycle: 'spot' }, [taint]), gpu];
    const judge = (tolerations: Obj[]) =>
      holds(
        cluster(...nodes, deployment('renderer', { replicas: 2 }, { tolerations })),
        { schedules: { someNodeLabels: { lifecycle: 'spot' }, avoidsNodeLabels: { pool: 'gpu' } } },
        'renderer',
      );

    it('fails the broken pods; passes Equal with the value and effect, Exists on the key, or no effect named', () => {
      expect(judge([])).to.equal(false);
      expect(judge([{ key: 'lifecycle', operator: 'Equal', value: 'spot', effect: 'NoSchedule' }])).to.equal(true);
      expect(judge([{ key: 'lifecycle', operator: 'Exists' }])).to.equal(true);
      expect(judge([{ key: 'lifecycle', value: 'spot' }])).to.equal(true);
    });

    it('fails a toleration with the wrong value, the wrong effect or another key, and one of every taint (the GPU pool too)', () => {
      expect(judge([{ operator: 'Exists' }])).to.equal(false);
      expect(
        judge([
          { key: 'lifecycle', operator: 'Exists' },
          { key: 'nvidia.com/gpu', operator: 'Exists' },
        ]),
      ).to.equal(false);
      expect(judge([{ key: 'lifecycle', operator: 'Equal', value: 'preemptible', effect: 'NoSchedule' }])).to.equal(false);
      expect(judge([{ key: 'lifecycle', operator: 'Equal', value: 'spot', effect: 'NoExecute' }])).to.equal(false);
      expect(judge([{ key: 'spot', operator: 'Exists' }])).to.equal(false);
    });
  });

  describe('env with from: the variable resolves through that ConfigMap', () => {
    const settings = configMap('flagd-settings', { FLAGD_PORT: '8013', FLAGD_LOG_FORMAT: 'json' });
    const judge = (container: Obj, ...more: Obj[]) =>
      ['FLAGD_PORT', 'FLAGD_LOG_FORMAT'].every((name) =>
        holds(
          cluster(settings, ...more, deployment('flagd', { replicas: 1 }, { containers: [{ name: 'flagd', image: 'flagd:1', ...container }] })),
          { env: { name, from: { kind: 'ConfigMap', name: 'flagd-settings' } }, exists: true },
          'flagd',
        ),
      );
    const keyRef = (name: string, key = name, cm = 'flagd-settings') => ({ name, valueFrom: { configMapKeyRef: { name: cm, key } } });

    it('fails the broken container; passes envFrom and per-key references', () => {
      expect(judge({})).to.equal(false);
      expect(judge({ envFrom: [{ configMapRef: { name: 'flagd-settings' } }] })).to.equal(true);
      expect(judge({ env: [keyRef('FLAGD_PORT'), keyRef('FLAGD_LOG_FORMAT')] })).to.equal(true);
    });

    it('fails pasted literals, a key of another name, another ConfigMap with the same data, and a literal overriding envFrom', () => {
      expect(
        judge({
          env: [
            { name: 'FLAGD_PORT', value: '8013' },
            { name: 'FLAGD_LOG_FORMAT', value: 'json' },
          ],
        }),
      ).to.equal(false);
      expect(judge({ env: [keyRef('FLAGD_PORT', 'FLAGD_LOG_FORMAT'), keyRef('FLAGD_LOG_FORMAT')] })).to.equal(false);
      const copy = configMap('copy', { FLAGD_PORT: '8013', FLAGD_LOG_FORMAT: 'json' });
      expect(judge({ envFrom: [{ configMapRef: { name: 'copy' } }] }, copy)).to.equal(false);
      expect(judge({ envFrom: [{ configMapRef: { name: 'flagd-settings' } }], env: [{ name: 'FLAGD_PORT', value: '8013' }] })).to.equal(false);
      // a later envFrom source of the same key wins over the ConfigMap
      expect(judge({ envFrom: [{ configMapRef: { name: 'flagd-settings' } }, { configMapRef: { name: 'copy' } }] }, copy)).to.equal(false);
    });
  });

  describe('probes, for op-add-readiness-probe: the port by number or by its name', () => {
    const landing = (readinessProbe: Obj | undefined) =>
      deployment(
        'landing',
        { replicas: 2 },
        { containers: [{ name: 'landing', image: 'nginx:1.27', ports: [{ name: 'http', containerPort: 80 }], ...(readinessProbe ? { readinessProbe } : {}) }] },
      );
    const judge = (probe: Obj | undefined) =>
      holds(cluster(landing(probe)), { probes: { probe: 'readiness', container: 'landing', serves: { port: 80, paths: ['/'] } } }, 'landing');

    it('fails no probe and a probe on another port; passes port 80, the name http and a TCP check', () => {
      expect(judge(undefined)).to.equal(false);
      expect(judge({ httpGet: { path: '/', port: 80 } })).to.equal(true);
      expect(judge({ httpGet: { path: '/', port: 'http' } })).to.equal(true);
      expect(judge({ tcpSocket: { port: 80 } })).to.equal(true);
      expect(judge({ httpGet: { path: '/', port: 8080 } })).to.equal(false);
    });
  });
});
