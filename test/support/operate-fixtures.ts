import { Operate, type OperateDeps } from '../../application/operations/operate.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm, type FakeReply } from '../fakes/fake-llm.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { openSafety } from '../fakes/null-safety.js';
import { FakeClock } from './fake-clock.js';
import { RecordingTracer } from './recording-tracer.js';

/** A Deployment as the API server returns it (server metadata, a settled status). */
export function deployment(over: { name?: string; namespace?: string; replicas?: number; image?: string } = {}): KubeObject {
  const name = over.name ?? 'web';
  const replicas = over.replicas ?? 2;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: over.namespace ?? 'x',
      uid: 'u-1',
      resourceVersion: '7',
      generation: 3,
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: name },
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name, image: over.image ?? 'nginx:1.27', ports: [{ containerPort: 80 }] },
            { name: 'sidecar', image: 'envoy:1.30' },
          ],
        },
      },
    },
    status: rolledOut(replicas, 3),
  };
}

/** The status a Deployment controller writes once a rollout of `replicas` replicas has finished. */
export function rolledOut(replicas: number, generation: number): Record<string, unknown> {
  return {
    observedGeneration: generation,
    replicas,
    updatedReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    conditions: [
      { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
      { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
    ],
  };
}

/** A plan answer as the model sends it. */
export function planJson(actions: Record<string, unknown>[], over: { summary?: string; risk?: string } = {}): string {
  return JSON.stringify({ summary: over.summary ?? 'Scale web in x from 2 to 5 replicas.', risk: over.risk ?? 'low', actions });
}

export const scaleWeb = (replicas = 5) => ({
  type: 'scale',
  target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' },
  replicas,
  description: `Scale web to ${replicas} replicas`,
  risk: 'low',
  rationale: 'The intent asks for more capacity',
});

/** The `web` Deployment as a client would create it on the behaving stand-in, with the server's defaults spelled out (the stand-in's create() applies none). */
export function webManifest(replicas = 2): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'x', labels: { app: 'web' } },
    spec: {
      replicas,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } },
    },
  };
}

/** Operate on fake ports: a cluster holding `deployment()`, a model answering `script`, the open safety null objects; `over` replaces any port. */
export function operateOnFakes(script: FakeReply[], over: Partial<OperateDeps> = {}) {
  const clock = new FakeClock();
  const cluster = new FakeCluster().put(deployment());
  const llm = new FakeLlm(script);
  const sessions = new FakeSessionStore({ clock });
  const deps: OperateDeps = {
    llm,
    reader: cluster,
    writer: cluster,
    sessions,
    tracer: new RecordingTracer(),
    clock,
    limits: { timeoutMs: 5000, maxTokens: 1_000_000 },
    ...openSafety(cluster),
    ...over,
  };
  return { clock, cluster, llm, sessions, operate: new Operate(deps) };
}
