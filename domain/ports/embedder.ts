/** What the `version` tool reports about the embedding service. */
export interface EmbedderInfo {
  provider: string;
  model: string;
  dimension: number;
  /** 'semantic' for a model-backed service, 'lexical' for the local hashing embedder. */
  kind: 'semantic' | 'lexical';
}

/** text -> vector. */
export interface Embedder {
  info(): EmbedderInfo;
  /** One vector per text, each of `info().dimension` finite numbers. Throws DependencyError on failure. */
  embed(texts: string[]): Promise<number[][]>;
}
