import type { ChangeEntry, ChangeFilter, ChangePage, ChangePageRequest, ChangeRecord } from '../ledger/change-entry.js';
import type { StoredRecord } from '../ledger/hash-chain.js';
import type { StoredAnchor, StoredHead } from '../ledger/ledger-seal.js';

/** The chain as stored: where it starts (the anchor), where svc says it ends (the head), with their seals, and the records between. */
export interface LedgerChain {
  anchor: StoredAnchor;
  head: StoredHead;
  records: AsyncIterable<StoredRecord>;
}

/**
 * The ledger of every change svc makes to a cluster: append-only, hash-chained.
 *
 * Contract (test/contract/change-ledger-contract.ts holds every adapter and the fake to it):
 * - `append` gives the record the next `seq`, an id `chg_<seq>_<8 hex>`,
 *   `at` (the ledger's clock), `prevHash` (the hash of the entry before, or
 *   the anchor's after pruning, or GENESIS_HASH) and `hash` (entryHash), and
 *   resolves only once the entry is durable (file: fsynced; Redis:
 *   acknowledged). Appends made at the same time (in one process, or from
 *   several replicas on a shared adapter) form one unbroken chain. A record
 *   over MAX_ENTRY_BYTES is ValidationError; nothing is written.
 * - Entries are never rewritten: what `get`, `list` and `chain` answer is a
 *   copy, and changing it changes nothing stored.
 * - `get` answers undefined for an unknown, malformed or pruned id.
 * - `list` answers entries matching every filter, newest first (highest seq
 *   first), at most `limit`, only below `beforeSeq` when given, with
 *   `nextBeforeSeq` when more match.
 * - `chain` answers the anchor, the head and every stored record oldest
 *   first, as stored (not from a cache), so an entry edited, removed or moved
 *   in the store shows; a record that is not an entry (a torn last line)
 *   comes back as `{ ok: false }`, never skipped. The head is the seq and
 *   hash of the last entry this ledger appended, kept apart from the entries
 *   (file: a fsynced head file; Redis: the head key) and as of the same
 *   moment as the records, so newest entries removed from the store show.
 * - With a key (SVC_LEDGER_KEY), `append` seals each entry with `mac`
 *   `hmac-sha256` and its hash an HMAC under the key (see sealEntry), the
 *   head it writes with `mac` (sealHead), and `prune` the anchor
 *   (sealAnchor). Before appending after a head read from the store, the
 *   ledger judges it (flawOfHead): a head not sealed as svc seals it is
 *   built on, and its flaw carried, sealed, in every head written after, so
 *   `chain` keeps answering it (SVC_LEDGER_ACCEPT_HEAD drops a flaw at that
 *   head; a head sealed with SVC_LEDGER_KEY_PREVIOUS before a rotation is
 *   no flaw).
 * - Intents: a record of type `intent` opens an intent; a record with
 *   `intentId` closes that intent, exactly once: when it is not an open
 *   intent of this ledger (unknown, not an intent, or already closed, also
 *   by another replica at the same moment) `append` is ConflictError and
 *   nothing is written. `list` never answers a closed intent (its outcome
 *   entry stands for it); an open one it does. `openIntents` answers the
 *   open intents, oldest first, as stored now (another replica's too).
 * - `prune(cutoffMs)` removes the entries taken before `cutoffMs` (up to the
 *   first one taken at or after it) and moves the anchor to the last removed
 *   one, so the chain still verifies; answers how many went.
 * - A failure of the store is DependencyError('ledger' or 'redis').
 */
export interface ChangeLedger {
  append(record: ChangeRecord): Promise<ChangeEntry>;
  get(id: string): Promise<ChangeEntry | undefined>;
  list(filter: ChangeFilter, page: ChangePageRequest): Promise<ChangePage>;
  chain(): Promise<LedgerChain>;
  openIntents(): Promise<ChangeEntry[]>;
  prune(cutoffMs: number): Promise<number>;
}
