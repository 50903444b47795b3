import type { Embedder, EmbedderInfo } from '../../domain/ports/embedder.js';
import { assertTexts } from '../../domain/vector/embedding-rules.js';

/**
 * Embedder for unit tests: a deterministic vector per text by default;
 * `respond` replaces the answer (wrong lengths, NaN, failures, a promise that never settles).
 */
export class FakeEmbedder implements Embedder {
  calls: string[][] = [];
  respond?: (texts: readonly string[]) => Promise<number[][]>;

  constructor(
    readonly dim = 4,
    private readonly kind: 'semantic' | 'lexical' = 'semantic',
  ) {}

  info(): EmbedderInfo {
    return { provider: 'fake', model: 'fake-model', dimension: this.dim, kind: this.kind };
  }

  async dimension(): Promise<number> {
    return this.dim;
  }

  embed(texts: readonly string[]): Promise<number[][]> {
    assertTexts(texts);
    this.calls.push([...texts]);
    if (this.respond) return this.respond(texts);
    return Promise.resolve(texts.map((t) => Array.from({ length: this.dim }, (_, i) => ((t.charCodeAt(i % t.length) + i) % 7) + 1)));
  }
}

/** A promise that never settles: a dependency that accepted the call and went silent. */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}
