import type { ListPage, ListQuery, Payload, PayloadFilter, ScoredPoint, SearchQuery, StoredPoint, VectorPoint } from '../../domain/ports/vector-store.js';
import { matchesFilter } from '../../domain/vector/vector-rules.js';

/** Writes `vector` scaled to unit length into `target` at `offset`; a zero vector stays zero (its cosine is 0). */
export function writeNormalised(vector: readonly number[], target: Float32Array, offset: number): void {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < vector.length; i++) target[offset + i] = vector[i] * scale;
}

/**
 * One collection held in memory for exact cosine search: unit-length vectors
 * in one contiguous Float32Array (row-major), so a search is a single linear
 * pass of dot products with a bounded top-k.
 */
export class EmbeddedCollection {
  private vectors: Float32Array;
  private ids: string[] = [];
  private payloads: Payload[] = [];
  private readonly rowOf = new Map<string, number>();
  private sortedIds?: string[];

  constructor(
    readonly name: string,
    readonly dimension: number,
    initialCapacity = 16,
  ) {
    this.vectors = new Float32Array(Math.max(1, initialCapacity) * dimension);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Rows in storage order, for serialisation: ids, payloads and the first size*dimension floats. */
  rows(): { ids: readonly string[]; payloads: readonly Payload[]; vectors: Float32Array } {
    return { ids: this.ids, payloads: this.payloads, vectors: this.vectors.subarray(0, this.ids.length * this.dimension) };
  }

  /** Loads rows whose vectors are already unit length (from a file this class wrote). */
  static fromRows(name: string, dimension: number, ids: string[], payloads: Payload[], vectors: Float32Array): EmbeddedCollection {
    const c = new EmbeddedCollection(name, dimension, ids.length);
    c.vectors.set(vectors.subarray(0, ids.length * dimension));
    c.ids = ids;
    c.payloads = payloads;
    ids.forEach((id, row) => c.rowOf.set(id, row));
    return c;
  }

  private grow(minRows: number): void {
    if (minRows * this.dimension <= this.vectors.length) return;
    let rows = this.vectors.length / this.dimension;
    while (rows < minRows) rows *= 2;
    const next = new Float32Array(rows * this.dimension);
    next.set(this.vectors);
    this.vectors = next;
  }

  /** Points must be validated and of this collection's dimension. */
  upsert(points: readonly VectorPoint[]): void {
    this.grow(this.ids.length + points.length);
    for (const p of points) {
      let row = this.rowOf.get(p.id);
      if (row === undefined) {
        row = this.ids.length;
        this.ids.push(p.id);
        this.payloads.push(p.payload);
        this.rowOf.set(p.id, row);
        this.sortedIds = undefined;
      } else {
        this.payloads[row] = p.payload;
      }
      writeNormalised(p.vector, this.vectors, row * this.dimension);
    }
  }

  /** Returns how many points were removed. Swaps the last row into the hole to keep storage dense. */
  delete(ids: readonly string[]): number {
    let removed = 0;
    for (const id of ids) {
      const row = this.rowOf.get(id);
      if (row === undefined) continue;
      const last = this.ids.length - 1;
      if (row !== last) {
        this.ids[row] = this.ids[last];
        this.payloads[row] = this.payloads[last];
        this.vectors.copyWithin(row * this.dimension, last * this.dimension, (last + 1) * this.dimension);
        this.rowOf.set(this.ids[row], row);
      }
      this.ids.pop();
      this.payloads.pop();
      this.rowOf.delete(id);
      removed++;
    }
    if (removed > 0) this.sortedIds = undefined;
    return removed;
  }

  search(query: SearchQuery): ScoredPoint[] {
    const dim = this.dimension;
    const q = new Float32Array(dim);
    writeNormalised(query.vector, q, 0);
    const threshold = query.scoreThreshold ?? -Infinity;
    const limit = query.limit;
    // top-k kept sorted best-first; k is at most 1000, so insertion beats a heap for typical k
    const topRows: number[] = [];
    const topScores: number[] = [];
    const v = this.vectors;
    for (let row = 0, base = 0; row < this.ids.length; row++, base += dim) {
      // four independent sums let the CPU overlap the multiply-adds
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      for (; i + 3 < dim; i += 4) {
        s0 += q[i] * v[base + i];
        s1 += q[i + 1] * v[base + i + 1];
        s2 += q[i + 2] * v[base + i + 2];
        s3 += q[i + 3] * v[base + i + 3];
      }
      for (; i < dim; i++) s0 += q[i] * v[base + i];
      const dot = s0 + s1 + s2 + s3;
      if (dot < threshold) continue;
      if (topRows.length === limit && dot <= topScores[limit - 1]) continue;
      if (query.filter && !matchesFilter(this.payloads[row], query.filter)) continue;
      let at = topRows.length;
      while (at > 0 && topScores[at - 1] < dot) at--;
      topRows.splice(at, 0, row);
      topScores.splice(at, 0, dot);
      if (topRows.length > limit) {
        topRows.pop();
        topScores.pop();
      }
    }
    return topRows.map((row, i) => ({ id: this.ids[row], score: topScores[i], payload: structuredClone(this.payloads[row]) }));
  }

  get(ids: readonly string[]): StoredPoint[] {
    const out: StoredPoint[] = [];
    for (const id of new Set(ids)) {
      const row = this.rowOf.get(id);
      if (row !== undefined) out.push({ id, payload: structuredClone(this.payloads[row]) });
    }
    return out;
  }

  count(filter?: PayloadFilter): number {
    if (!filter) return this.ids.length;
    let n = 0;
    for (const p of this.payloads) if (matchesFilter(p, filter)) n++;
    return n;
  }

  /** Pages in id order; the cursor is the first id of the next page. */
  list(query: ListQuery): ListPage {
    this.sortedIds ??= [...this.ids].sort();
    const sorted = this.sortedIds;
    let start = 0;
    if (query.cursor !== undefined) {
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (sorted[mid] < query.cursor) lo = mid + 1;
        else hi = mid;
      }
      start = lo;
    }
    const points: StoredPoint[] = [];
    for (let i = start; i < sorted.length; i++) {
      const row = this.rowOf.get(sorted[i])!;
      if (!matchesFilter(this.payloads[row], query.filter)) continue;
      if (points.length === query.limit) return { points, next: sorted[i] };
      points.push({ id: sorted[i], payload: structuredClone(this.payloads[row]) });
    }
    return { points };
  }
}
