/** What the `version` tool reports about the embedding service. */
export interface EmbedderInfo {
  /** 'openai' for an OpenAI-compatible service, 'local-hashing' for the local embedder. */
  provider: string;
  model: string;
  /** Vector length; undefined until a model of unknown dimension has answered once. */
  dimension?: number;
  /** 'semantic' for a model-backed service, 'lexical' for the local hashing embedder. */
  kind: 'semantic' | 'lexical';
}

/** text -> vector. */
export interface Embedder {
  info(): EmbedderInfo;
  /**
   * The vector length. Known from configuration or the model, or probed once
   * with a real call and remembered. Throws DependencyError when a probe fails.
   */
  dimension(): Promise<number>;
  /**
   * One vector per text, in order, each of `dimension()` finite numbers.
   * Throws ValidationError for an empty list (or more than 2048 texts) or an empty text,
   * DependencyError when the service fails, does not answer, or answers with
   * vectors of the wrong length or non-finite values.
   */
  embed(texts: readonly string[]): Promise<number[][]>;
}
