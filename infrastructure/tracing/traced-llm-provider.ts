import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { SpanAttributes, Tracer } from '../../domain/ports/tracer.js';
import { asNumber, asString, field, traceMethods, type CallSpan } from './trace-methods.js';

/** gen_ai.usage.* from a result's `usage` ({ inputTokens, outputTokens, cacheReadTokens, cacheCreationTokens }). */
export function usageAttributes(result: unknown): SpanAttributes {
  const usage = field(result, 'usage');
  return {
    'gen_ai.usage.input_tokens': asNumber(field(usage, 'inputTokens')),
    'gen_ai.usage.output_tokens': asNumber(field(usage, 'outputTokens')),
    'gen_ai.usage.cache_read_tokens': asNumber(field(usage, 'cacheReadTokens')),
    'gen_ai.usage.cache_creation_tokens': asNumber(field(usage, 'cacheCreationTokens')),
  };
}

function aiCall(inner: LlmProvider, operation: 'chat' | 'tool_loop', requestedModel: unknown): CallSpan {
  const status = inner.status();
  const model = asString(requestedModel) ?? status.model ?? 'unknown';
  return {
    name: `${operation} ${model}`,
    attributes: {
      'gen_ai.operation.name': operation,
      'gen_ai.provider.name': status.provider,
      'gen_ai.request.model': model,
    },
    fromResult: (result) => ({
      ...usageAttributes(result),
      'gen_ai.response.model': asString(field(result, 'model')),
      'svc.tool_loop.iterations': asNumber(field(result, 'iterations')),
      'svc.tool_loop.stopped_by': asString(field(result, 'stoppedBy')),
    }),
  };
}

/**
 * LlmProvider with `chat <model>` and `tool_loop <model>` spans carrying the
 * gen_ai.* request and usage attributes. The loop's model calls (`chat`
 * spans) and the tools it runs (cluster spans) nest under `tool_loop`.
 */
export function tracedLlmProvider(inner: LlmProvider, tracer: Tracer): LlmProvider {
  return traceMethods(inner, tracer, {
    chat: (args) => aiCall(inner, 'chat', field(args[1], 'model')),
    // the loop calls this.chat per iteration: through the decorator, each is a `chat` span under `tool_loop`
    toolLoop: (args) => ({ ...aiCall(inner, 'tool_loop', field(field(args[0], 'options'), 'model')), tracesSelfCalls: true }),
  });
}
