import { expect } from 'chai';
import type { ClusterClient } from '../../domain/ports/cluster-client.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { RunBudget } from '../../application/ai/run-budget.js';
import { runToolLoop, type ModelFunction } from '../../application/ai/tool-loop.js';
import { tracedClusterClient } from '../../infrastructure/tracing/traced-cluster-client.js';
import { tracedLlmProvider } from '../../infrastructure/tracing/traced-llm-provider.js';
import { RecordingTracer, type RecordedSpan } from '../support/recording-tracer.js';

/*
 * The decorators over plain fakes and the recording tracer: names and
 * attributes per method. The ports are still growing on other branches, so
 * the fakes carry the full method sets and are cast to today's port types.
 */

const usage = { inputTokens: 11, outputTokens: 22, cacheReadTokens: 3, cacheCreationTokens: 4 };

/** The spans under the tool span every decorated call here runs in (decorators only trace inside a recorded run). */
function under(tracer: RecordingTracer): RecordedSpan[] {
  return tracer.spans.filter((s) => s.name !== 'execute_tool test');
}

function only(tracer: RecordingTracer): RecordedSpan {
  expect(under(tracer)).to.have.length(1);
  return under(tracer)[0]!;
}

describe('span decorators of the AI and cluster ports', () => {
  let tracer: RecordingTracer;
  beforeEach(() => (tracer = new RecordingTracer()));
  const inTool = <T>(fn: () => Promise<T>) => tracer.inSpan('execute_tool test', {}, fn);

  describe('LlmProvider', () => {
    const cluster = {
      context: () => 'kind-test',
      async list(_query: unknown) {
        return { items: [] };
      },
    };
    const fake = {
      status: () => ({ configured: true, provider: 'openai-compatible', model: 'gpt-default' }),
      async chat(_messages: unknown[], options: { model?: string } = {}) {
        return { text: 'hi', toolCalls: [], usage, model: `${options.model ?? 'gpt-default'}-2025` };
      },
    };

    it('chat: `chat <model>` with the requested model and gen_ai.usage.*', async () => {
      const llm = tracedLlmProvider(fake as unknown as LlmProvider, tracer) as unknown as typeof fake;
      expect(llm.status().model).to.equal('gpt-default');
      await inTool(() => llm.chat([], { model: 'gpt-big' }));
      const span = only(tracer);
      expect(span.name).to.equal('chat gpt-big');
      expect(span.attributes).to.deep.include({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai-compatible',
        'gen_ai.request.model': 'gpt-big',
        'gen_ai.response.model': 'gpt-big-2025',
        'gen_ai.usage.input_tokens': 11,
        'gen_ai.usage.output_tokens': 22,
        'gen_ai.usage.cache_read_tokens': 3,
        'gen_ai.usage.cache_creation_tokens': 4,
      });
    });

    it('tool_loop: the application loop over the decorated chat; its model calls and the functions it runs nest under it', async () => {
      const k8s = tracedClusterClient(cluster as unknown as ClusterClient, tracer);
      let calls = 0;
      const scripted = tracedLlmProvider(
        {
          ...fake,
          chat: async (m: unknown[], o: { model?: string }) => ({
            ...(await fake.chat(m, o)),
            toolCalls: calls++ === 0 ? [{ id: 'c1', name: 'list', arguments: '{}' }] : [],
          }),
        } as unknown as LlmProvider,
        tracer,
      );
      const list: ModelFunction = {
        spec: { name: 'list', description: 'list', parameters: { type: 'object' } },
        run: () => k8s.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'default' }),
      };
      const budget = new RunBudget({ maxCalls: 5, maxTokens: 100000, timeoutMs: 5000 });
      await inTool(() => runToolLoop(scripted, tracer, { messages: [{ role: 'user', content: 'go' }], functions: [list], budget }));
      const [loop, ...inside] = under(tracer);
      expect(loop!.name).to.equal('tool_loop gpt-default');
      expect(loop!.attributes).to.deep.include({ 'gen_ai.operation.name': 'tool_loop', 'svc.tool_loop.calls': 2, 'gen_ai.usage.input_tokens': 22 });
      expect(inside.map((s) => s.name)).to.deep.equal(['chat gpt-default', 'list', 'chat gpt-default']);
      for (const span of inside) expect(span.parent).to.equal(loop);
    });
  });

  describe('ClusterClient', () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } };
    const failure = new Error('forbidden');
    const fake = {
      context: () => 'kind-test',
      async status() {
        return { connected: true, context: 'kind-test' };
      },
      async apply(m: unknown) {
        return m;
      },
      async get() {
        throw failure;
      },
      async logs(_query: unknown) {
        return 'log text';
      },
      async events(_query: unknown) {
        return [];
      },
    };
    const k8s = () => tracedClusterClient(fake as unknown as ClusterClient, tracer) as unknown as typeof fake;

    it('names spans by API method with k8s.api, k8s.method, k8s.operation, k8s.resource', async () => {
      const c = k8s();
      expect(c.context()).to.equal('kind-test');
      await inTool(async () => {
        await c.apply(deployment);
        await c.logs({ namespace: 'shop', pod: 'web-1' });
        await c.events({ namespace: 'shop' });
        await c.status(); // a probe: no span
      });
      expect(under(tracer).map((x) => x.name)).to.deep.equal(['apply', 'logs', 'events']);
      const [apply, logs, events] = under(tracer);
      expect(apply!.name).to.equal('apply');
      expect(apply!.attributes).to.deep.include({
        'k8s.api': 'apps/v1',
        'k8s.method': 'apply',
        'k8s.operation': 'patch',
        'k8s.resource': 'Deployment',
        'k8s.resource.name': 'web',
        'k8s.namespace.name': 'shop',
      });
      expect(logs!.attributes).to.deep.include({ 'k8s.api': 'v1', 'k8s.resource': 'Pod', 'k8s.operation': 'get', 'k8s.resource.name': 'web-1' });
      expect(events!.attributes).to.deep.include({ 'k8s.resource': 'Event', 'k8s.operation': 'list', 'k8s.namespace.name': 'shop' });
    });

    it('rethrows the adapter error unchanged and records it on the span', async () => {
      let caught: unknown;
      await inTool(() => k8s().get()).catch((e) => (caught = e));
      expect(caught).to.equal(failure);
      expect(only(tracer).error).to.equal(failure);
    });
  });
});
