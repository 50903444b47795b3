import { NotConfiguredError } from '../../domain/errors.js';
import type { Embedder, EmbedderInfo } from '../../domain/ports/embedder.js';

/** Placeholder until an embedder is chosen by configuration. */
export class UnconfiguredEmbedder implements Embedder {
  info(): EmbedderInfo {
    return { provider: 'none', model: 'none', dimension: 0, kind: 'lexical' };
  }
  async embed(): Promise<number[][]> {
    throw new NotConfiguredError('The embedding service', 'set OPENAI_API_KEY');
  }
}
