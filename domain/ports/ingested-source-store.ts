import type { IngestedSource } from '../uploads/ingested-source.js';

/**
 * The cache of uploaded skill sources (SPEC.md "States and transitions").
 * In memory only: nothing survives a restart and nothing is preloaded. Bounded
 * by count and by total decoded bytes; the least recently used source goes first.
 */
export interface IngestedSourceStore {
  /**
   * The source cached under `key` (sourceKey() of the identifier), or
   * undefined when it was never stored, was evicted, or was lost on restart.
   * A hit counts as a use for eviction order. Never throws.
   */
  get(key: string): Promise<IngestedSource | undefined>;

  /**
   * Caches `source` under `source.key`, replacing any previous entry whole:
   * afterwards `get` returns either the old entry (if this throws) or the new
   * one, never a mix. Evicts least recently used entries until the count and
   * byte bounds hold. Throws ValidationError when `source.totalBytes` alone
   * exceeds the byte bound (the configuration rules that out for valid manifests).
   */
  put(source: IngestedSource): Promise<void>;
}
