import type { Embedder } from '../../domain/ports/embedder.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { traceMethods } from './trace-methods.js';
import { usageAttributes } from './traced-llm-provider.js';

/**
 * Embedder with an `embeddings <model>` span per `embed` call. Token usage is
 * recorded when the result carries it (`usage` on the returned value); the
 * bare vectors of the current port do not, so no count is invented.
 */
export function tracedEmbedder(inner: Embedder, tracer: Tracer): Embedder {
  return traceMethods(inner, tracer, {
    embed: (args) => {
      const info = inner.info();
      return {
        name: `embeddings ${info.model}`,
        attributes: {
          'gen_ai.operation.name': 'embeddings',
          'gen_ai.provider.name': info.provider,
          'gen_ai.request.model': info.model,
          'svc.embeddings.input_count': Array.isArray(args[0]) ? args[0].length : undefined,
        },
        fromResult: (result) => ({
          'gen_ai.embeddings.dimension.count': Array.isArray(result) && Array.isArray(result[0]) ? result[0].length : undefined,
          ...usageAttributes(result),
        }),
      };
    },
  });
}
