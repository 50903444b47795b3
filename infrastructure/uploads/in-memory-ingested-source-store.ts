import { ValidationError } from '../../domain/errors.js';
import type { IngestedSourceStore } from '../../domain/ports/ingested-source-store.js';
import type { IngestedSource } from '../../domain/uploads/ingested-source.js';

export interface IngestedSourceStoreLimits {
  /** Most sources held at once. */
  maxSources: number;
  /** Most decoded bytes held at once, summed over all sources. */
  maxBytes: number;
}

/**
 * An LRU over a Map (whose iteration order is insertion order: a use
 * re-inserts, so the first key is always the least recently used).
 * Single-threaded JS makes every method atomic; entries are immutable.
 */
export class InMemoryIngestedSourceStore implements IngestedSourceStore {
  private readonly entries = new Map<string, IngestedSource>();
  private bytes = 0;

  constructor(private readonly limits: IngestedSourceStoreLimits) {
    if (!(limits.maxSources >= 1) || !(limits.maxBytes >= 1)) {
      throw new Error(`Ingested source store limits must be positive, got ${JSON.stringify(limits)}`);
    }
  }

  async get(key: string): Promise<IngestedSource | undefined> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  async put(source: IngestedSource): Promise<void> {
    if (source.totalBytes > this.limits.maxBytes) {
      throw new ValidationError(
        `Upload of ${source.totalBytes} decoded bytes exceeds the server's source cache of ${this.limits.maxBytes} bytes (SVC_SOURCES_MAX_BYTES)`,
      );
    }
    this.remove(source.key);
    for (const [key, oldest] of this.entries) {
      if (this.entries.size < this.limits.maxSources && this.bytes + source.totalBytes <= this.limits.maxBytes) break;
      this.remove(key, oldest);
    }
    this.entries.set(source.key, source);
    this.bytes += source.totalBytes;
  }

  /** What is held now; for tests, benches and diagnostics. */
  stats(): { count: number; bytes: number } {
    return { count: this.entries.size, bytes: this.bytes };
  }

  /** Drops one entry (a first level whose source was replaced or expired elsewhere). */
  remove(key: string, entry = this.entries.get(key)): void {
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.totalBytes;
  }
}
