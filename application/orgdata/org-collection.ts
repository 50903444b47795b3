import type { Embedder } from '../../domain/ports/embedder.js';
import type { ListPage, Payload, ScoredPoint, StoredPoint, VectorStore } from '../../domain/ports/vector-store.js';
import { CollectionNotFoundError, VectorDimensionError } from '../../domain/vector/vector-errors.js';
import { CLUSTER_FIELD, clusterFilter } from './cluster-partition.js';

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
 *
 * With a `partition` (the capabilities while svc serves several clusters),
 * each cluster has its own part of the collection: a document is stored
 * under `<cluster>/<id>` with the cluster in its payload, and every read,
 * delete and count sees only the current cluster's part, under the ids the
 * documents were given. Without one the collection is one whole, as always.
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
    /** The cluster the current work is for, when the collection is kept per cluster. */
    private readonly partition?: () => string,
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
    const cluster = this.partition?.();
    const vectors = await this.embedder.embed(docs.map((d) => d.text));
    const points = docs.map((d, i) => ({
      id: pointId(cluster, d.id),
      vector: vectors[i],
      payload: cluster === undefined ? d.payload : { ...d.payload, [CLUSTER_FIELD]: cluster },
    }));
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
    const cluster = this.partition?.();
    const filter = clusterFilter(cluster);
    const [vector] = await this.embedder.embed([query]);
    try {
      return (await this.store.search(this.name, { vector, limit, ...(filter ? { filter } : {}) })).map((p) => ({ ...p, id: documentId(cluster, p.id) }));
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

  async list(limit: number, cursor?: string): Promise<ListPage> {
    const cluster = this.partition?.();
    const filter = clusterFilter(cluster);
    const page = await this.store.list(this.name, { limit, ...(cursor !== undefined ? { cursor } : {}), ...(filter ? { filter } : {}) });
    return cluster === undefined ? page : { ...page, points: page.points.map((p) => ({ ...p, id: documentId(cluster, p.id) })) };
  }

  async get(id: string): Promise<StoredPoint | undefined> {
    const cluster = this.partition?.();
    const [point] = await this.store.get(this.name, [pointId(cluster, id)]);
    // a point under the cluster's prefix is that cluster's; the payload check guards against one stored otherwise
    if (!point || (cluster !== undefined && point.payload[CLUSTER_FIELD] !== cluster)) return undefined;
    return { ...point, id };
  }

  delete(id: string): Promise<void> {
    return this.store.delete(this.name, [pointId(this.partition?.(), id)]);
  }

  count(): Promise<number> {
    const filter = clusterFilter(this.partition?.());
    return filter ? this.store.count(this.name, filter) : this.store.count(this.name);
  }

  /**
   * Drops the collection (the next write recreates it with the current
   * embedder); answers how many documents it held. Kept per cluster, it
   * deletes the current cluster's documents only and the collection stays.
   */
  async deleteAll(): Promise<number> {
    const cluster = this.partition?.();
    if (cluster !== undefined) return this.deleteCluster(cluster);
    const count = await this.store.count(this.name);
    this.ensured = false;
    await this.store.deleteCollection(this.name);
    return count;
  }

  /** Deletes one cluster's documents a page at a time; deleting while paging would move the cursor, so the ids are gathered first. */
  private async deleteCluster(cluster: string): Promise<number> {
    const filter = clusterFilter(cluster)!;
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.store.list(this.name, { limit: DELETE_PAGE, filter, ...(cursor !== undefined ? { cursor } : {}) });
      ids.push(...page.points.map((p) => p.id));
      cursor = page.next;
    } while (cursor !== undefined);
    for (let i = 0; i < ids.length; i += DELETE_PAGE) await this.store.delete(this.name, ids.slice(i, i + DELETE_PAGE));
    return ids.length;
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

/** Points listed and deleted at once when one cluster's documents are deleted. */
const DELETE_PAGE = 500;

/** A document's point id: its own id, under its cluster's prefix when the collection is kept per cluster. */
function pointId(cluster: string | undefined, id: string): string {
  return cluster === undefined ? id : `${cluster}/${id}`;
}

/** The id a document was given, from its point id. */
function documentId(cluster: string | undefined, id: string): string {
  const prefix = `${cluster}/`;
  return cluster !== undefined && id.startsWith(prefix) ? id.slice(prefix.length) : id;
}
