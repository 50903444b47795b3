import type { ApiResourceInfo, KubeObject, ResourceSchema } from '../../domain/cluster/kube-types.js';
import { AnswerQuestion } from '../../application/deployment/answer-question.js';
import { ChooseSolution } from '../../application/deployment/choose-solution.js';
import { DeployManifests } from '../../application/deployment/deploy-manifests.js';
import { GenerateManifests } from '../../application/deployment/generate-manifests.js';
import { Recommend } from '../../application/deployment/recommend.js';
import { SolutionSessions } from '../../application/deployment/solution-sessions.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { guardOver, NO_RECORDER, NO_VERIFY } from '../fakes/null-safety.js';
import type { PolicySource } from '../../application/actions/policy-source.js';
import type { ExecutionVerifier } from '../../application/actions/verify-execution.js';
import type { WriteRecorder } from '../../application/ledger/change-recorder.js';
import { OPEN_WRITE_SCOPE, type WriteScope } from '../../domain/actions/write-scope.js';
import { NO_SECOND_APPROVER, type ApprovalPolicy } from '../../domain/auth/session-owner.js';
import { NO_METRICS, type Metrics } from '../../domain/ports/metrics.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import { FakeEmbedder } from './fake-embedder.js';
import { FakeVectorStore } from './fake-vector-store.js';
import { InstantClock } from './instant-clock.js';

const RW = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const res = (apiVersion: string, kind: string, resource: string, namespaced = true): ApiResourceInfo => {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return { group, version, apiVersion, kind, resource, namespaced, verbs: RW, shortNames: [] };
};

export const KIT_RESOURCES: ApiResourceInfo[] = [
  res('v1', 'Namespace', 'namespaces', false),
  res('v1', 'ConfigMap', 'configmaps'),
  res('v1', 'Service', 'services'),
  res('v1', 'PersistentVolumeClaim', 'persistentvolumeclaims'),
  res('apps/v1', 'Deployment', 'deployments'),
  res('apps/v1', 'StatefulSet', 'statefulsets'),
];

const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string', description, ...extra });
const int = (description: string) => ({ type: 'integer', format: 'int32', description });
const container = {
  type: 'object',
  required: ['name'],
  properties: {
    name: str('Name of the container.'),
    image: str('Container image name.'),
    ports: { type: 'array', items: { allOf: [{ type: 'object', properties: { containerPort: int('Port number to expose.') } }] } },
    resources: {
      allOf: [{ type: 'object', properties: { limits: { type: 'object', additionalProperties: { allOf: [{ type: 'string' }] } } } }],
      description: 'Compute resources.',
    },
  },
};
const podTemplate = {
  allOf: [
    { type: 'object', properties: { spec: { allOf: [{ type: 'object', properties: { containers: { type: 'array', items: { allOf: [container] } } } }] } } },
  ],
};

/** Abridged schemas shaped like the API server's (references wrapped in allOf). */
export const KIT_SCHEMAS: ResourceSchema[] = [
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    schema: {
      type: 'object',
      properties: {
        spec: {
          allOf: [
            {
              type: 'object',
              required: ['selector', 'template'],
              properties: {
                replicas: int('Number of desired pods.'),
                template: podTemplate,
                strategy: { allOf: [{ type: 'object', properties: { type: str('Type of deployment.', { enum: ['Recreate', 'RollingUpdate'] }) } }] },
              },
            },
          ],
        },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    schema: {
      type: 'object',
      properties: {
        spec: {
          allOf: [
            {
              type: 'object',
              properties: {
                type: str('How the Service is exposed.', { enum: ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'] }),
                ports: { type: 'array', items: { allOf: [{ type: 'object', properties: { port: int('The port.') } }] } },
              },
            },
          ],
        },
      },
    },
  },
  { apiVersion: 'v1', kind: 'ConfigMap', schema: { type: 'object', properties: { data: { type: 'object', additionalProperties: { type: 'string' } } } } },
];

export const recommendAnswer = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    clarity: 'clear',
    guidance: [],
    solutions: [
      {
        score: 90,
        description: 'nginx as a Deployment behind a Service',
        resources: [
          { kind: 'Deployment', apiVersion: 'apps/v1', purpose: 'runs nginx' },
          { kind: 'Service', apiVersion: 'v1', purpose: 'exposes it' },
        ],
        patternsApplied: [],
        policiesRespected: [],
      },
    ],
    ...over,
  });

export function webManifests(name = 'web', replicas = 2, image = 'nginx:1.25'): KubeObject[] {
  const labels = { app: name };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name, image, ports: [{ containerPort: 80 }] }] } },
      },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: labels, ports: [{ port: 80, targetPort: 80 }] } },
  ];
}

export const manifestsAnswer = (objects: KubeObject[]) => JSON.stringify({ manifests: objects });

/** Marks Deployments available as soon as they are written (a controller that keeps up). */
export function availableAtOnce(o: KubeObject): KubeObject {
  if (o.kind !== 'Deployment') return o;
  const replicas = (o.spec as { replicas?: number }).replicas ?? 1;
  return {
    ...o,
    metadata: { ...o.metadata, generation: 1 },
    status: { observedGeneration: 1, replicas, updatedReplicas: replicas, availableReplicas: replicas, readyReplicas: replicas },
  };
}

/** What deployManifests is built with in a test: every safety collaborator a null object (named) unless given. */
export interface DeployOptions {
  scope?: WriteScope;
  policies?: PolicySource;
  approval?: ApprovalPolicy;
  recorder?: WriteRecorder;
  metrics?: Metrics;
  verify?: ExecutionVerifier;
}

/** deployManifests over `cluster` and `store`: OPEN_WRITE_SCOPE, NO_POLICIES, NO_SECOND_APPROVER, NO_RECORDER, NO_METRICS, NO_VERIFY unless given. */
export function deployManifestsOver(kit: { cluster: FakeCluster; store: SessionStore; clock: Clock & Timers }, o: DeployOptions = {}): DeployManifests {
  return new DeployManifests({
    guard: guardOver(kit.cluster, { scope: o.scope ?? OPEN_WRITE_SCOPE, ...(o.policies ? { policies: o.policies } : {}) }),
    reader: kit.cluster,
    sessions: new SolutionSessions(kit.store, o.approval ?? NO_SECOND_APPROVER),
    clock: kit.clock,
    recorder: o.recorder ?? NO_RECORDER,
    metrics: o.metrics ?? NO_METRICS,
    verify: o.verify ?? NO_VERIFY,
  });
}

/** The five use cases over fakes. */
export function deployKit() {
  const clock = new InstantClock(() => Date.UTC(2026, 0, 1));
  const llm = new FakeLlm();
  const cluster = new FakeCluster();
  cluster.resources = [...KIT_RESOURCES];
  for (const s of KIT_SCHEMAS) cluster.schemas.set(`${s.apiVersion}/${s.kind}`, s);
  cluster.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  const store = new FakeSessionStore({ clock });
  const sessions = new SolutionSessions(store, NO_SECOND_APPROVER);
  const vectors = new FakeVectorStore();
  const embedder = new FakeEmbedder(4);
  const limits = { maxTokens: 1_000_000, timeoutMs: 60_000 };
  return {
    clock,
    llm,
    cluster,
    store,
    vectors,
    embedder,
    recommend: new Recommend(llm, embedder, vectors, cluster, sessions, limits),
    choose: new ChooseSolution(cluster, sessions),
    answer: new AnswerQuestion(cluster, sessions),
    generate: new GenerateManifests(llm, cluster, cluster, sessions, clock, limits),
    deploy: deployManifestsOver({ cluster, store, clock }),
  };
}
