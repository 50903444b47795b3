import { expect } from 'chai';
import { allowed, at, deployment, deploymentChange, DEPLOYMENT, judge, obj } from '../support/write-guard-kit.js';

/** Issue 40 item 9: what a person fixes every day stays medium or lower under the positive model (docs/safe-writes.md, "Everyday fixes"). */
describe('everyday fixes stay medium or lower', () => {
  const probe = { httpGet: { path: '/healthz', port: 8080 }, initialDelaySeconds: 5, periodSeconds: 10, failureThreshold: 3 };
  const fixes: [string, () => ReturnType<typeof deploymentChange>, 'low' | 'medium'][] = [
    ['a new tag from the same registry', () => deploymentChange([{}, { image: 'ghcr.io/acme/web:1.1' }]), 'medium'],
    [
      'a tag from a registry in SVC_IMAGE_REGISTRIES',
      () => deploymentChange([{}, { image: 'registry.example/acme/web:2' }], { settings: { imageRegistries: ['registry.example'] } }),
      'medium',
    ],
    ['resources', () => deploymentChange([{}, { resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } } }]), 'medium'],
    [
      'replicas up',
      () => allowed(judge({ target: DEPLOYMENT, live: deployment(), result: { ...deployment(), spec: { ...(deployment().spec as object), replicas: 6 } } })),
      'low',
    ],
    ['liveness, readiness and startup probes', () => deploymentChange([{}, { livenessProbe: probe, readinessProbe: probe, startupProbe: probe }]), 'medium'],
    [
      'plain env values',
      () =>
        deploymentChange([
          {},
          {
            env: [
              { name: 'LOG_LEVEL', value: 'debug' },
              { name: 'POOL', value: '10' },
            ],
          },
        ]),
      'medium',
    ],
    [
      'a rollout restart',
      () => deploymentChange([{}, {}, { metadata: { labels: { app: 'web' }, annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-12-01T10:00:00Z' } } }]),
      'medium',
    ],
    [
      "the data of the workload's ConfigMap",
      () =>
        allowed(
          judge({
            target: at('', 'ConfigMap'),
            live: obj('v1', 'ConfigMap', { data: { LOG_LEVEL: 'info' } }),
            result: obj('v1', 'ConfigMap', { data: { LOG_LEVEL: 'debug' } }),
          }),
        ),
      'medium',
    ],
    [
      "an autoscaler's maximum raised",
      () =>
        allowed(
          judge({
            target: at('autoscaling', 'HorizontalPodAutoscaler'),
            live: obj('autoscaling/v2', 'HorizontalPodAutoscaler', { spec: { minReplicas: 2, maxReplicas: 5 } }),
            result: obj('autoscaling/v2', 'HorizontalPodAutoscaler', { spec: { minReplicas: 3, maxReplicas: 10 } }),
          }),
        ),
      'low',
    ],
  ];
  for (const [name, make, level] of fixes)
    it(`${name}: ${level}`, () => {
      const v = make();
      expect(v.risk, v.riskReasons.join('; ')).to.equal(level);
    });
});
