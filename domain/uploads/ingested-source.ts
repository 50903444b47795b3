/** One file of an ingested source, after every check: a normalised path, a sanitised mode, decoded bytes. */
export interface IngestedFile {
  /** Relative, `/`-separated, no `.`/`..`/empty segment. */
  readonly path: string;
  /** Permission bits only (0..0o777). */
  readonly mode: number;
  readonly content: Buffer;
}

/** A skill source a client uploaded, as cached: immutable once built, never cloned. */
export interface IngestedSource {
  /** sourceKey() of the identifier exactly as sent: a digest, so no credential sits in the cache. */
  readonly key: string;
  /** The identifier with credentials scrubbed, as answers show it. */
  readonly source: string;
  /** `sha256:<64 lowercase hex>`, verified against the files; absent when the client sent none. */
  readonly contentHash?: string;
  /** In ascending byte order of their UTF-8 paths. */
  readonly files: readonly IngestedFile[];
  /** Sum of the decoded file sizes, bytes. */
  readonly totalBytes: number;
}
