import os from 'node:os';
import { expect } from 'chai';
import request from 'supertest';
import type { DependencyContainer } from 'tsyringe';
import type { ToolHandler } from '../../application/tool-handler.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import { appParts, buildContainer } from '../../infrastructure/composition-root.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { createApp } from '../../interfaces/http/app.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiCompatibleServer } from '../support/openai-compatible-server.js';
import { QdrantServer } from '../support/qdrant-server.js';
import type { ReceivedSpan } from '../support/received-span.js';
import { attr, childrenOf, one } from '../support/span-tree.js';
import { TraceReceiver } from '../support/trace-receiver.js';

const AUTH = 'canary-auth-token-real-adapters-01';
const AI_KEY = 'sk-canary-real-adapters-ai-key';
const QDRANT_KEY = 'canary-qdrant-api-key-real-02';

/** The HTTP client spans a logical span contains (a Qdrant upsert may take more than one request). */
function httpChildren(spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  const children = childrenOf(spans, parent);
  expect(children.length, `HTTP spans under "${parent.name}"`).to.be.greaterThan(0);
  for (const c of children) expect(c.kind, `kind of "${c.name}" under "${parent.name}"`).to.equal('client');
  return children;
}

/** A tool run over every port, as the AI tools will do it. */
function investigate(container: () => DependencyContainer): ToolHandler {
  return {
    async execute(input) {
      const c = container();
      const issue = String(input.issue);
      const [vector] = await c.resolve<Embedder>(TOKENS.Embedder).embed([issue]);
      const store = c.resolve<VectorStore>(TOKENS.VectorStore);
      await store.ensureCollection('patterns', { dimension: vector!.length, distance: 'cosine' });
      await store.upsert('patterns', [{ id: 'p1', vector: vector!, payload: { text: issue } }]);
      const hits = await store.search('patterns', { vector: vector!, limit: 3 });
      const answer = await c.resolve<LlmProvider>(TOKENS.LlmProvider).chat([{ role: 'user', content: issue }]);
      const cluster = c.resolve(TOKENS.ClusterReader);
      const pods = await cluster.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'default' });
      const missing = await cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'default' });
      return { hits: hits.length, answer: answer.text, pods: pods.items.length, missing };
    },
  };
}

describe('tracing over the real adapters (Qdrant, OpenAI-compatible, Kubernetes clients against their wire servers)', function () {
  let receiver: TraceReceiver;
  let qdrant: QdrantServer;
  let openai: OpenAiCompatibleServer;
  let kube: KubeApiServer;

  before(async () => {
    receiver = await TraceReceiver.start();
    qdrant = await new QdrantServer({ apiKey: QDRANT_KEY }).start();
    openai = await new OpenAiCompatibleServer({ apiKey: AI_KEY, models: { 'test-embed': 8 } }).start();
    kube = await KubeApiServer.start();
  });
  after(async () => {
    await receiver.close();
    await qdrant.stop();
    await openai.stop();
    await kube.close();
  });

  it('one trace: tool span, AI, vector and cluster spans, each with the HTTP spans of its requests; no credential', async () => {
    const config = loadConfig(
      {
        SVC_AUTH_TOKEN: AUTH,
        QDRANT_URL: qdrant.url,
        QDRANT_API_KEY: QDRANT_KEY,
        OPENAI_API_KEY: AI_KEY,
        OPENAI_BASE_URL: openai.baseURL,
        SVC_EMBEDDINGS_MODEL: 'test-embed',
        SVC_LLM_MODEL: 'gpt-test',
        KUBECONFIG: kube.writeKubeconfig(),
        OTEL_TRACING_ENABLED: 'true',
        OTEL_EXPORTER_TYPE: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
      os.tmpdir(),
    );
    const container: DependencyContainer = buildContainer(config, { logger: new CapturingLogger(), toolHandlers: { remediate: investigate(() => container) } });
    const res = await request(createApp(appParts(container)))
      .post('/api/v1/tools/remediate')
      .set('authorization', `Bearer ${AUTH}`)
      .send({ issue: 'pods of web crash-loop' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.result).to.deep.include({ hits: 1, missing: null });
    await container.resolve<Tracer>(TOKENS.Tracer).shutdown();

    const spans = receiver.spans;
    expect(receiver.errors).to.deep.equal([]);
    expect(new Set(spans.map((s) => s.traceId)).size).to.equal(1);
    const root = one(spans, 'execute_tool remediate');
    expect(childrenOf(spans, root).map((s) => s.name)).to.deep.equal([
      'embeddings test-embed',
      'ensure_collection',
      'upsert',
      'search',
      'chat gpt-test',
      'list',
      'get',
    ]);
    for (const child of childrenOf(spans, root)) httpChildren(spans, child);

    const chat = one(spans, 'chat gpt-test');
    expect(attr(chat, 'gen_ai.provider.name')).to.equal('openai-compatible');
    expect(Number(attr(chat, 'gen_ai.usage.input_tokens'))).to.be.greaterThan(0);
    expect(Number(attr(chat, 'gen_ai.usage.output_tokens'))).to.be.greaterThan(0);
    const search = one(spans, 'search');
    expect([attr(search, 'db.system.name'), attr(search, 'db.collection.name'), attr(search, 'db.query.result_count')]).to.deep.equal([
      'qdrant',
      'patterns',
      '1',
    ]);
    expect(Number(attr(search, 'db.vector.top_score'))).to.be.closeTo(1, 1e-3);
    const list = one(spans, 'list');
    expect([attr(list, 'k8s.api'), attr(list, 'k8s.resource'), attr(list, 'k8s.namespace.name')]).to.deep.equal(['v1', 'Pod', 'default']);
    const kubeHttp = httpChildren(spans, list);
    expect(kubeHttp.some((s) => /^https:/.test(attr(s, 'url.full') ?? attr(s, 'http.url') ?? ''))).to.equal(true);

    const raw = receiver.rawText();
    for (const secret of [AUTH, AI_KEY, QDRANT_KEY, kube.token]) expect(raw.includes(secret), `${secret.slice(0, 12)}... leaked`).to.equal(false);
  });
});
