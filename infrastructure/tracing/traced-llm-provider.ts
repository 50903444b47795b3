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

function aiCall(inner: LlmProvider, operation: 'chat', requestedModel: unknown): CallSpan {
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
    }),
  };
}

/**
 * LlmProvider with `chat <model>` spans carrying the gen_ai.* request and
 * usage attributes. The `tool_loop <model>` span is the loop's own
 * (application/ai/tool-loop.ts); the chat calls it makes nest under it.
 */
export function tracedLlmProvider(inner: LlmProvider, tracer: Tracer): LlmProvider {
  return traceMethods(inner, tracer, {
    chat: (args) => aiCall(inner, 'chat', field(args[1], 'model')),
  });
}
