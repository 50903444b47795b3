import type { Embedder } from '../../domain/ports/embedder.js';
import type { ListPage, Payload, ScoredPoint, StoredPoint, VectorStore } from '../../domain/ports/vector-store.js';
import { CollectionNotFoundError, VectorDimensionError } from '../../domain/vector/vector-errors.js';

/** One document to store: its id, the text embedded for it and its payload. */
export interface IndexedDocument {
  id: string;
  text: string;
  payload: Payload;
}

/**
 * One organisation-data collection (`patterns`, `policies`, `capabilities`)
 * over the VectorStore and Embedder ports. The collection is created on the
 * first write with the embedder's dimension; a collection built by another
 * embedder is reported with `rebuild` (what to run), never written over.
 */
export class OrgCollection {
  /** Set once this process has checked (and created) the collection with the embedder's dimension. */
  private ensured = false;

  constructor(
    readonly name: string,
    private readonly store: VectorStore,
    private readonly embedder: Embedder,
    /** What to run to rebuild the collection, for the mismatch message. */
    private readonly rebuild: string,
  ) {}

  /** Throws VectorDimensionError (500, with what to run) when the stored collection was built with another dimension. */
  async assertDimension(): Promise<number> {
    const dimension = await this.embedder.dimension();
    if (this.ensured) return dimension;
    const info = await this.store.describeCollection(this.name);
    if (info && info.dimension !== dimension) throw this.mismatch(info.dimension, dimension);
    return dimension;
  }

  async upsert(docs: readonly IndexedDocument[]): Promise<void> {
    if (docs.length === 0) return;
    const dimension = await this.ensure();
    const vectors = await this.embedder.embed(docs.map((d) => d.text));
    const points = docs.map((d, i) => ({ id: d.id, vector: vectors[i], payload: d.payload }));
    try {
      await this.store.upsert(this.name, points);
    } catch (e) {
      if (e instanceof VectorDimensionError) throw this.mismatch(e.expected, dimension);
      // dropped meanwhile (deleteAll elsewhere): create it again, once
      if (!(e instanceof CollectionNotFoundError)) throw e;
      this.ensured = false;
      await this.ensure();
      await this.store.upsert(this.name, points);
    }
  }

  /** Up to `limit` hits, best first; none when the collection does not exist yet. */
  async search(query: string, limit: number): Promise<ScoredPoint[]> {
    const [vector] = await this.embedder.embed([query]);
    try {
      return await this.store.search(this.name, { vector, limit });
    } catch (e) {
      if (e instanceof VectorDimensionError) throw this.mismatch(e.expected, e.actual);
      throw e;
    }
  }

  /**
   * Checks the dimension and creates the collection once per process; later
   * writes rely on the store's own dimension check (VectorDimensionError), so a
   * change made elsewhere is still reported, never written over.
   */
  private async ensure(): Promise<number> {
    const dimension = await this.assertDimension();
    if (this.ensured) return dimension;
    try {
      await this.store.ensureCollection(this.name, { dimension, distance: 'cosine' });
    } catch (e) {
      if (e instanceof VectorDimensionError) throw this.mismatch(e.expected, dimension);
      throw e;
    }
    this.ensured = true;
    return dimension;
  }

  list(limit: number, cursor?: string): Promise<ListPage> {
    return this.store.list(this.name, { limit, ...(cursor !== undefined ? { cursor } : {}) });
  }

  async get(id: string): Promise<StoredPoint | undefined> {
    const [point] = await this.store.get(this.name, [id]);
    return point;
  }

  delete(id: string): Promise<void> {
    return this.store.delete(this.name, [id]);
  }

  count(): Promise<number> {
    return this.store.count(this.name);
  }

  /** Drops the collection (the next write recreates it with the current embedder); answers how many documents it held. */
  async deleteAll(): Promise<number> {
    const count = await this.store.count(this.name);
    this.ensured = false;
    await this.store.deleteCollection(this.name);
    return count;
  }

  private mismatch(stored: number, current: number): VectorDimensionError {
    return new VectorDimensionError(
      this.name,
      stored,
      current,
      `the embedding model changed since the collection was built; nothing was written. To rebuild it with the current embedder, run ${this.rebuild}`,
    );
  }
}
