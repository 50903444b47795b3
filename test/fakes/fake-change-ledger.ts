import type { ChangeEntry, ChangeFilter, ChangePage, ChangePageRequest, ChangeRecord } from '../../domain/ledger/change-entry.js';
import { keysOf, matchesFilter } from '../../domain/ledger/change-keys.js';
import { entrySealedWith, GENESIS_ANCHOR, sealEntry } from '../../domain/ledger/hash-chain.js';
import { flawOfHead, sealAnchor, sealHead, type LedgerKeys, type StoredAnchor, type StoredHead } from '../../domain/ledger/ledger-seal.js';
import { entryText } from '../../domain/ledger/ledger-text.js';
import { checkIntentFields, intentNotOpen } from '../../domain/ledger/intents.js';
import type { ChangeLedger, LedgerChain } from '../../domain/ports/change-ledger.js';
import type { Clock } from '../../domain/ports/clock.js';

/** ChangeLedger in memory, held to the same contract as the adapters. Stores text, so a caller's object never aliases an entry. */
export class FakeChangeLedger implements ChangeLedger {
  /** Stored texts in chain order; tests may edit them to play tampering. */
  readonly texts: string[] = [];
  anchor: StoredAnchor = GENESIS_ANCHOR;
  /** The head this ledger keeps apart from the texts (tests may edit the texts to cut the newest, and the head to play a rewrite). */
  head: StoredHead = GENESIS_ANCHOR;
  private n = 0;
  private seal: LedgerKeys;

  constructor(
    private readonly clock: Clock,
    key?: string,
  ) {
    this.seal = { key };
  }

  private get key(): string | undefined {
    return this.seal.key;
  }

  /** Seals and judges with these keys from now on (a restart with a rotated key, SVC_LEDGER_ACCEPT_HEAD). */
  rekey(keys: LedgerKeys): this {
    this.seal = { ...keys };
    return this;
  }

  /** When set, an append of this record throws it instead (a ledger that cannot write). */
  failAppend?: (record: ChangeRecord) => Error | undefined;

  async append(record: ChangeRecord): Promise<ChangeEntry> {
    checkIntentFields(record);
    const failure = this.failAppend?.(record);
    if (failure) throw failure;
    // synchronous from the check to the push: two appends at once cannot both close one intent
    if (record.intentId !== undefined && !this.open().some((e) => e.id === record.intentId)) throw intentNotOpen(record.intentId);
    const random = (++this.n).toString(16).padStart(8, '0').slice(-8);
    const entry = sealEntry(record, { seq: this.head.seq + 1, prevHash: this.head.hash, atMs: this.clock.now(), random8Hex: random }, this.key);
    // the head is judged as stored each time (a test may have rewritten it), as a replica reading it from Redis would
    const atHead = this.texts.map((text) => ({ entry: JSON.parse(text) as ChangeEntry, text })).find((r) => r.entry.seq === this.head.seq);
    const flaw = flawOfHead(this.head, this.seal, atHead && entrySealedWith(atHead, this.seal), this.clock.now());
    this.texts.push(entryText(entry));
    this.head = sealHead({ seq: entry.seq, hash: entry.hash, flaw }, this.key);
    return JSON.parse(this.texts.at(-1)!) as ChangeEntry;
  }

  async get(id: string): Promise<ChangeEntry | undefined> {
    return this.entries().find((e) => e.id === id);
  }

  async list(filter: ChangeFilter, page: ChangePageRequest): Promise<ChangePage> {
    const closed = this.closedIntents();
    const matching = this.entries()
      .filter((e) => !closed.has(e.id) && (page.beforeSeq === undefined || e.seq < page.beforeSeq) && matchesFilter(keysOf(e), filter))
      .reverse();
    const entries = matching.slice(0, page.limit);
    return { entries, ...(matching.length > page.limit ? { nextBeforeSeq: entries.at(-1)!.seq } : {}) };
  }

  async openIntents(): Promise<ChangeEntry[]> {
    return this.open();
  }

  private open(): ChangeEntry[] {
    const closed = this.closedIntents();
    return this.entries().filter((e) => e.type === 'intent' && !closed.has(e.id));
  }

  private closedIntents(): Set<string> {
    return new Set(this.entries().flatMap((e) => (e.intentId ? [e.intentId] : [])));
  }

  async chain(): Promise<LedgerChain> {
    const texts = [...this.texts];
    return {
      anchor: this.anchor,
      head: this.head,
      records: (async function* () {
        for (const t of texts) yield { ok: true as const, entry: JSON.parse(t) as ChangeEntry };
      })(),
    };
  }

  async prune(cutoffMs: number): Promise<number> {
    const all = this.entries();
    const keep = all.findIndex((e) => Date.parse(e.at) >= cutoffMs);
    const drop = keep === -1 ? all.length : keep;
    if (drop === 0) return 0;
    this.anchor = sealAnchor(all[drop - 1], this.key);
    this.texts.splice(0, drop);
    return drop;
  }

  private entries(): ChangeEntry[] {
    return this.texts.map((t) => JSON.parse(t) as ChangeEntry);
  }
}
