import type { IngestedSourceStore } from '../../domain/ports/ingested-source-store.js';
import type { IngestedSource } from '../../domain/uploads/ingested-source.js';

/** Unbounded map honouring the port's contract: whole entries, replaced whole. */
export class FakeIngestedSourceStore implements IngestedSourceStore {
  readonly entries = new Map<string, IngestedSource>();

  async get(key: string): Promise<IngestedSource | undefined> {
    return this.entries.get(key);
  }

  async put(source: IngestedSource): Promise<void> {
    this.entries.set(source.key, source);
  }
}
