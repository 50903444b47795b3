import type { ChangeFilter, ChangePageRequest } from '../../domain/ledger/change-entry.js';
import { matchesFilter, type ChangeKeys } from '../../domain/ledger/change-keys.js';

/** An entry's keys and where its full text is (a file offset, a stream id). */
export type IndexRow<L> = ChangeKeys & { loc: L };

/**
 * The keys of every entry in memory, in seq order, so a filtered list of
 * 100,000 entries is a scan of small objects and only the page's entries are
 * read in full. Bounded by what the store keeps (retention): about 200 bytes
 * an entry.
 */
export class LedgerIndex<L> {
  private rows: IndexRow<L>[] = [];
  private readonly byId = new Map<string, IndexRow<L>>();
  /** Intents an outcome entry names (closed): not listed. */
  private readonly closed = new Set<string>();

  get size(): number {
    return this.rows.length;
  }

  get lastSeq(): number {
    return this.rows.at(-1)?.seq ?? 0;
  }

  /** Adds an entry; one with a seq not above the last is ignored (already indexed). */
  add(row: IndexRow<L>): void {
    if (row.seq <= this.lastSeq) return;
    this.rows.push(row);
    this.byId.set(row.id, row);
    if (row.intentId) this.closed.add(row.intentId);
  }

  /** Whether `id` is an intent with no outcome entry yet. */
  isOpenIntent(id: string): boolean {
    return !!this.byId.get(id)?.intent && !this.closed.has(id);
  }

  /** The intents with no outcome entry, oldest first. */
  openIntents(): IndexRow<L>[] {
    return this.rows.filter((r) => r.intent && !this.closed.has(r.id));
  }

  find(id: string): IndexRow<L> | undefined {
    return this.byId.get(id);
  }

  /** Forgets every entry with a seq up to `seq` (pruned). */
  dropThrough(seq: number): void {
    let n = 0;
    while (n < this.rows.length && this.rows[n].seq <= seq) {
      this.byId.delete(this.rows[n].id);
      this.closed.delete(this.rows[n++].id);
    }
    if (n) this.rows = this.rows.slice(n);
  }

  clear(): void {
    this.rows = [];
    this.byId.clear();
    this.closed.clear();
  }

  /** The first entry taken at or after `cutoffMs` by position (entries before it are what retention removes); undefined when none is. */
  firstKeptFrom(cutoffMs: number): IndexRow<L> | undefined {
    return this.rows.find((r) => r.atMs >= cutoffMs);
  }

  last(): IndexRow<L> | undefined {
    return this.rows.at(-1);
  }

  /** Matching rows, newest first, at most `limit + 1` (the extra one says there is a next page); a closed intent is never one. */
  query(filter: ChangeFilter, page: ChangePageRequest): IndexRow<L>[] {
    const out: IndexRow<L>[] = [];
    for (let i = this.below(page.beforeSeq) - 1; i >= 0 && out.length <= page.limit; i--) {
      const row = this.rows[i];
      if (!(row.intent && this.closed.has(row.id)) && matchesFilter(row, filter)) out.push(row);
    }
    return out;
  }

  /** How many rows have a seq below `seq` (all of them when undefined): rows are in seq order, so a binary search. */
  private below(seq: number | undefined): number {
    if (seq === undefined) return this.rows.length;
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.rows[mid].seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
