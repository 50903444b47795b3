import type { Embedder, EmbedderInfo } from '../../domain/ports/embedder.js';
import { assertTexts } from '../../domain/vector/embedding-rules.js';

export const HASHING_MODEL = 'hashing-ngrams-v1';

// Feature weights: whole words carry most meaning; bigrams keep some word order;
// character trigrams make inflections and typos ("deployment" / "deployments") overlap.
const WORD = 1;
const BIGRAM = 0.5;
const TRIGRAM = 0.25;

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Local, deterministic embedder: signed feature hashing of words, word bigrams
 * and character trigrams, L2-normalised. Lexical, not semantic: texts are close
 * when they share words, not when they mean the same thing. No network, no model.
 */
export class HashingEmbedder implements Embedder {
  constructor(private readonly dim = 384) {
    if (!Number.isInteger(dim) || dim < 8 || dim > 65536) throw new Error('hashing embedder dimension must be an integer from 8 to 65536');
  }

  info(): EmbedderInfo {
    return { provider: 'local-hashing', model: HASHING_MODEL, dimension: this.dim, kind: 'lexical' };
  }

  async dimension(): Promise<number> {
    return this.dim;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    assertTexts(texts);
    return texts.map((t) => this.vectorise(t));
  }

  private vectorise(text: string): number[] {
    const v = new Float64Array(this.dim);
    const add = (feature: string, weight: number) => {
      const h = fnv1a(feature);
      // the sign comes from other bits of the hash, so collisions cancel out on average
      v[h % this.dim] += (h & 0x80000000) !== 0 ? -weight : weight;
    };
    const normalised = text.normalize('NFKC').toLowerCase();
    const words = normalised.match(/[\p{L}\p{N}]+/gu) ?? [normalised.trim()];
    words.forEach((w, i) => {
      add(`w:${w}`, WORD);
      if (i > 0) add(`b:${words[i - 1]} ${w}`, BIGRAM);
      const padded = `#${w}#`;
      for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, TRIGRAM);
    });
    let norm = 0;
    for (const x of v) norm += x * x;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    return Array.from(v, (x) => x * scale);
  }
}
