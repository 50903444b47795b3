import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { DependencyContainer } from 'tsyringe';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { Overrides } from '../../infrastructure/composition-root.js';
import { HashingEmbedder } from '../../infrastructure/embeddings/hashing-embedder.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { InstantClock } from './instant-clock.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { startModelStandIn, type ModelStandIn, type Provider } from './model-stand-ins.js';
import { webManifests } from './deploy-kit.js';
import { auth, buildTestApp } from './test-app.js';

type Json = Record<string, any>;

/**
 * The stand-ins a whole deployment workflow runs against: the Kubernetes API
 * stand-in and the OpenAI-compatible chat server, with a model that answers
 * by the structured answer it is asked for (`recommendation`, `manifests`).
 */
export class WorkflowStandIns {
  /** Manifests the model writes, one array per `manifests` request (the last one repeats). */
  manifests: KubeObject[][] = [webManifests('web', 2)];
  recommendation: Json = {
    clarity: 'clear',
    guidance: [],
    solutions: [
      {
        score: 92,
        description: 'nginx as a Deployment behind a ClusterIP Service, following the web-tier pattern',
        resources: [
          { kind: 'Deployment', apiVersion: 'apps/v1', purpose: 'runs nginx' },
          { kind: 'Service', apiVersion: 'v1', purpose: 'stable address' },
          { kind: 'HTTPRoute', apiVersion: 'gateway.networking.k8s.io/v1', purpose: 'outside access' },
        ],
        patternsApplied: ['web-tier'],
        policiesRespected: ['max-replicas'],
      },
    ],
  };
  readonly dataDir = mkdtempSync(path.join(tmpdir(), 'svc-workflow-'));
  private manifestCalls = 0;

  private constructor(
    readonly kube: KubeApiServer,
    readonly chat: ModelStandIn,
  ) {}

  static async start(provider: Provider = 'openai'): Promise<WorkflowStandIns> {
    const s = new WorkflowStandIns(await KubeApiServer.start(), await startModelStandIn(provider));
    return s;
  }

  /** Environment of an app using these stand-ins (its own data directory: the seeded collections stay here). */
  env(): Record<string, string> {
    return {
      KUBECONFIG: this.kube.writeKubeconfig(),
      ...this.chat.env(),
      SVC_DATA_DIR: this.dataDir,
    };
  }

  /**
   * Adapters in place of the configured ones: the local lexical embedder (the
   * chat stand-in serves no embeddings), and a clock whose waits pass at once
   * (deployManifests' polls, each a tick of the Kubernetes stand-in).
   */
  overrides(): Overrides {
    return { embedder: new HashingEmbedder(), clock: new InstantClock() };
  }

  /**
   * The real app on these stand-ins, its org data seeded, and `call`: one
   * tool call over REST that expects `status` and answers the result (the
   * error body when it is not 200).
   */
  async app() {
    const t = buildTestApp(this.env(), this.overrides());
    await this.seedOrgData(t.container);
    const call = async (tool: string, params: Record<string, unknown>, status = 200): Promise<Json> => {
      const res = await request(t.app).post(`/api/v1/tools/${tool}`).set(auth).send(params);
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      return status === 200 ? res.body.data.result : res.body;
    };
    return { ...t, call };
  }

  /** Queues `n` model answers (each picks its content from what it is asked for). */
  answer(n = 4): void {
    for (let i = 0; i < n; i++) {
      this.chat.script((body: Json) => {
        const name = body.response_format?.json_schema?.name;
        if (name === 'recommendation') return { content: JSON.stringify(this.recommendation) };
        const objects = this.manifests[Math.min(this.manifestCalls++, this.manifests.length - 1)];
        return { content: JSON.stringify({ manifests: objects }) };
      });
    }
  }

  /** Seeds the embedded vector store with one capability, one pattern and one policy, as manageOrgData stores them. */
  async seedOrgData(container: DependencyContainer): Promise<void> {
    const store = container.resolve(TOKENS.VectorStore);
    const embedder = container.resolve(TOKENS.Embedder);
    const dimension = await embedder.dimension();
    const docs: [string, string, Json][] = [
      [
        'capabilities',
        'deployment.apps',
        {
          id: 'deployment.apps',
          dataType: 'capabilities',
          resource: { group: 'apps', version: 'v1', apiVersion: 'apps/v1', kind: 'Deployment', resource: 'deployments', namespaced: true },
          capabilities: ['rolling updates', 'stateless web servers'],
          providers: ['kubernetes'],
          complexity: 'low',
          useCases: ['web server'],
          description: 'Runs replicated stateless pods',
          confidence: 0.9,
          scanId: 's1',
          analyzedAt: '2026-01-01T00:00:00Z',
        },
      ],
      [
        'patterns',
        'web-tier',
        {
          id: 'web-tier',
          dataType: 'pattern',
          description: 'A web server is a Deployment behind a Service',
          triggers: ['web server', 'nginx'],
          suggestedResources: ['Deployment', 'Service'],
          rationale: 'standard',
          createdBy: 'platform',
          createdAt: '2026-01-01T00:00:00Z',
        },
      ],
      [
        'policies',
        'max-replicas',
        {
          id: 'max-replicas',
          dataType: 'policy',
          description: 'Web servers run at most 3 replicas',
          triggers: ['web server', 'nginx'],
          rationale: 'cost',
          createdBy: 'platform',
          createdAt: '2026-01-01T00:00:00Z',
          constraints: [{ kind: 'Deployment', field: 'spec.replicas', maximum: 3, message: 'at most 3 replicas' }],
        },
      ],
    ];
    for (const [collection, id, payload] of docs) {
      await store.ensureCollection(collection, { dimension, distance: 'cosine' });
      const [vector] = await embedder.embed([`${payload.description} ${(payload.triggers ?? []).join(' ')}`]);
      await store.upsert(collection, [{ id, vector, payload }]);
    }
  }

  async close(): Promise<void> {
    await this.kube.close();
    await this.chat.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export type CallTool = (tool: string, params: Record<string, unknown>) => Promise<Json>;

export interface WorkflowStep {
  tool: string;
  params: Record<string, unknown>;
  result: Json;
}

/** recommend -> chooseSolution -> answerQuestion (four stages) -> generateManifests -> deployManifests, through `call`. */
export async function runWorkflow(
  call: CallTool,
  intent = 'an nginx web server for the shop front end, reachable inside the cluster',
  /** deployManifests' parameters besides solutionId (`gitops` delivers through git). */
  deploy: Record<string, unknown> = { timeout: 60 },
): Promise<WorkflowStep[]> {
  const steps: WorkflowStep[] = [];
  const step = async (tool: string, params: Record<string, unknown>) => {
    const result = await call(tool, params);
    steps.push({ tool, params, result });
    return result;
  };
  const rec = await step('recommend', { intent });
  const solutionId = rec.solutions[0].solutionId as string;
  await step('chooseSolution', { solutionId });
  await step('answerQuestion', { solutionId, stage: 'required', answers: { name: 'web', namespace: 'x', 'deployment-image': 'nginx:1.25' } });
  await step('answerQuestion', { solutionId, stage: 'basic', answers: { 'deployment-replicas': 2, 'deployment-port': 80, 'service-port': 80 } });
  await step('answerQuestion', { solutionId, stage: 'advanced', answers: {} });
  await step('answerQuestion', { solutionId, stage: 'open', answers: { open: 'serve the shop front end' } });
  await step('generateManifests', { solutionId });
  await step('deployManifests', { solutionId, ...deploy });
  return steps;
}
