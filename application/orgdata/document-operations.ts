import { NotFoundError } from '../../domain/errors.js';
import type { OrgDataType } from '../../domain/orgdata/org-data-operations.js';
import { documentEmbeddingText, toOrgDocument, type OrgDocumentInput } from '../../domain/orgdata/org-documents.js';
import { checkPolicyClusters, type ClusterIdentity } from '../../domain/orgdata/policy-clusters.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { StoredPoint } from '../../domain/ports/vector-store.js';
import type { OrgCollection } from './org-collection.js';

export const DEFAULT_LIMIT = 10;

/** The operations every collection shares: list, get, delete, deleteAll, search. */
export class CollectionOperations {
  constructor(
    readonly dataType: OrgDataType,
    protected readonly collection: OrgCollection,
  ) {}

  async list(limit = DEFAULT_LIMIT, cursor?: string) {
    const [page, total] = await Promise.all([this.collection.list(limit, cursor), this.collection.count()]);
    return {
      dataType: this.dataType,
      operation: 'list',
      items: page.points.map(item),
      count: page.points.length,
      total,
      ...(page.next ? { next: page.next } : {}),
    };
  }

  async get(id: string) {
    return { dataType: this.dataType, operation: 'get', item: item(await this.found(id)) };
  }

  async delete(id: string) {
    await this.found(id);
    await this.collection.delete(id);
    return { dataType: this.dataType, operation: 'delete', id, deleted: true };
  }

  async deleteAll() {
    const deletedCount = await this.collection.deleteAll();
    return { dataType: this.dataType, operation: 'deleteAll', deletedCount };
  }

  async search(query: string, limit = DEFAULT_LIMIT) {
    const hits = await this.collection.search(query, limit);
    return { dataType: this.dataType, operation: 'search', query, results: hits.map((h) => ({ score: round(h.score), item: item(h) })) };
  }

  private async found(id: string): Promise<StoredPoint> {
    const point = await this.collection.get(id);
    if (!point) throw new NotFoundError('NOT_FOUND', `No ${this.dataType} with id ${JSON.stringify(id)}; list them with operation list`);
    return point;
  }
}

/** Patterns and policies: the shared operations plus `create` of a whole document. */
export class DocumentOperations extends CollectionOperations {
  constructor(
    override readonly dataType: 'pattern' | 'policy',
    collection: OrgCollection,
    private readonly clock: Clock,
    private readonly newId: () => string,
    /** With SVC_CLUSTERS: the clusters svc serves, which a policy's `clusters` must name or match; undefined: svc's one cluster, where a policy takes no limit. */
    private readonly clusters?: readonly ClusterIdentity[],
  ) {
    super(dataType, collection);
  }

  /** `caller`: the name a document that names no creator records (the caller's person, else their username). */
  async create(input: OrgDocumentInput, caller: string) {
    checkPolicyClusters(input.clusters, this.clusters);
    const doc = toOrgDocument(this.dataType, input, this.newId(), new Date(this.clock.now()).toISOString(), caller);
    await this.collection.upsert([{ id: doc.id, text: documentEmbeddingText(doc), payload: { ...doc } }]);
    return { dataType: this.dataType, operation: 'create', id: doc.id, item: doc };
  }
}

function item(point: StoredPoint): Record<string, unknown> {
  return { ...point.payload, id: point.id };
}

function round(score: number): number {
  return Math.round(score * 10000) / 10000;
}
