import { expect } from 'chai';
import type { ClusterClient } from '../../domain/ports/cluster-client.js';
import type { Embedder } from '../../domain/ports/embedder.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { VectorStore } from '../../domain/ports/vector-store.js';
import { UnconfiguredClusterClient } from '../../infrastructure/not-configured/unconfigured-cluster-client.js';
import { UnconfiguredLlmProvider } from '../../infrastructure/not-configured/unconfigured-llm-provider.js';
import { NoopTracer } from '../../infrastructure/tracing/noop-tracer.js';
import { tracePorts } from '../../infrastructure/tracing/trace-ports.js';
import { tracedEmbedder } from '../../infrastructure/tracing/traced-embedder.js';
import { tracedVectorStore } from '../../infrastructure/tracing/traced-vector-store.js';
import { RecordingTracer, type RecordedSpan } from '../support/recording-tracer.js';

/*
 * The decorators over plain fakes and the recording tracer: names and
 * attributes per method. The ports are still growing on other branches, so
 * the fakes carry the full method sets and are cast to today's port types.
 */

/** The spans under the tool span every decorated call here runs in (decorators only trace inside a recorded run). */
function under(tracer: RecordingTracer): RecordedSpan[] {
  return tracer.spans.filter((s) => s.name !== 'execute_tool test');
}

function only(tracer: RecordingTracer): RecordedSpan {
  expect(under(tracer)).to.have.length(1);
  return under(tracer)[0]!;
}

describe('span decorators of the vector and embedding ports, and when not to wrap', () => {
  let tracer: RecordingTracer;
  beforeEach(() => (tracer = new RecordingTracer()));
  const inTool = <T>(fn: () => Promise<T>) => tracer.inSpan('execute_tool test', {}, fn);

  describe('VectorStore', () => {
    const fake = {
      calls: 0,
      async search() {
        return [
          { id: 'a', payload: {}, score: 0.8 },
          { id: 'b', payload: {}, score: 0.3 },
        ];
      },
      async upsert() {},
      async delete() {},
      async list() {
        return { points: [{ id: 'a', payload: {} }], next: 'c' };
      },
      async get() {
        return [];
      },
      async count() {
        return 42;
      },
      async listCollections() {
        return ['patterns', 'policies'];
      },
      async health() {
        return { connected: true, provider: 'qdrant' };
      },
      async collectionExists() {
        return true;
      },
      async rebuild() {
        return 'untraced';
      },
    };
    const store = () => tracedVectorStore(fake as unknown as VectorStore, tracer, 'qdrant') as unknown as typeof fake;

    it('search: db.* attributes with result count and top score', async () => {
      const hits = await inTool(() => store().search());
      expect(hits).to.have.length(2);
      const span = only(tracer);
      expect(span.name).to.equal('search');
      expect(span.attributes).to.deep.include({
        'db.system.name': 'qdrant',
        'db.operation.name': 'search',
        'db.query.result_count': 2,
        'db.vector.top_score': 0.8,
      });
    });

    it('names every operation and reads the collection from the first argument', async () => {
      const s = store() as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      await inTool(async () => {
        await s.upsert!('patterns', [{}, {}, {}]);
        await s.delete!('policies', ['x']);
        await s.list!('capabilities', { limit: 5 });
        await s.count!('patterns');
        await s.listCollections!();
        await s.collectionExists!('patterns');
      });
      const byName = Object.fromEntries(under(tracer).map((x) => [x.name, x.attributes]));
      // listCollections and collectionExists are probes: not traced
      expect(Object.keys(byName)).to.deep.equal(['upsert', 'delete', 'list', 'count']);
      expect(byName.upsert).to.deep.include({ 'db.collection.name': 'patterns', 'db.operation.batch.size': 3 });
      expect(byName.delete).to.deep.include({ 'db.collection.name': 'policies', 'db.operation.batch.size': 1 });
      expect(byName.list).to.deep.include({ 'db.collection.name': 'capabilities', 'db.query.limit': 5, 'db.query.result_count': 1 });
      expect(byName.count).to.deep.include({ 'db.response.count': 42 });
    });

    it('traces nothing outside a recorded tool run: the call goes straight through', async () => {
      expect(await store().search()).to.have.length(2);
      expect(tracer.spans).to.deep.equal([]);
    });

    it('passes a method it has no plan for straight through, untraced', async () => {
      expect(await inTool(() => store().rebuild())).to.equal('untraced');
      expect(under(tracer)).to.deep.equal([]);
    });
  });

  it('Embedder: `embeddings <model>`, info() stays synchronous', async () => {
    const fake = {
      info: () => ({ provider: 'openai', model: 'text-embedding-3-small', dimension: 2, kind: 'semantic' as const }),
      embed: async (texts: string[]) => texts.map(() => [1, 0]),
    };
    const embedder = tracedEmbedder(fake as unknown as Embedder, tracer);
    expect(embedder.info().model).to.equal('text-embedding-3-small');
    expect(await inTool(() => embedder.embed(['a', 'b']))).to.deep.equal([
      [1, 0],
      [1, 0],
    ]);
    const span = only(tracer);
    expect(span.name).to.equal('embeddings text-embedding-3-small');
    expect(span.attributes).to.deep.include({
      'gen_ai.operation.name': 'embeddings',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'text-embedding-3-small',
      'svc.embeddings.input_count': 2,
      'gen_ai.embeddings.dimension.count': 2,
    });
  });

  it('leaves an AI provider and a cluster that are not configured unwrapped: they make no call worth a span', () => {
    const vectorStore = {} as VectorStore;
    const embedder = {} as Embedder;
    const ports = { vectorStore, embedder, llm: new UnconfiguredLlmProvider(), cluster: new UnconfiguredClusterClient() };
    const out = tracePorts(ports, tracer);
    expect(out.llm).to.equal(ports.llm);
    expect(out.cluster).to.equal(ports.cluster);
    expect(out.vectorStore).to.not.equal(vectorStore);
    const configured = tracePorts({ ...ports, llm: { status: () => ({ configured: true, provider: 'openai' }) } as LlmProvider }, tracer);
    expect(configured.llm).to.not.equal(ports.llm);
  });

  it('wraps nothing when tracing is off', () => {
    const ports = { vectorStore: {} as VectorStore, embedder: {} as Embedder, llm: {} as LlmProvider, cluster: {} as ClusterClient };
    const out = tracePorts(ports, new NoopTracer());
    expect(out).to.deep.equal(ports);
    for (const key of Object.keys(ports) as Array<keyof typeof ports>) expect(out[key]).to.equal(ports[key]);
  });
});
