import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { GENESIS_HASH, type ChangeEntry, type ChangeRecord } from './change-entry.js';
import { newEntryId } from './change-keys.js';
import { anchorProblem, flawOfHead, headFlawProblem, type LedgerKeys, type SealVerdict, type StoredAnchor, type StoredHead } from './ledger-seal.js';

/** The name a keyed entry carries in `mac`: its hash is an HMAC-SHA256 under SVC_LEDGER_KEY. */
export const LEDGER_MAC = 'hmac-sha256' as const;

/** The digest an entry is sealed with: HMAC-SHA256 under the key for an entry marked `mac`, SHA-256 otherwise. */
function digest(keyed: boolean, key: string | undefined): Hash | Hmac {
  return keyed ? createHmac('sha256', key ?? '') : createHash('sha256');
}

/**
 * The entry's hash over its canonical JSON without its own `hash` (`prevHash`
 * is inside, which makes the chain): SHA-256, or for an entry marked `mac`
 * an HMAC-SHA256 under `key`, which nobody without the key can recompute.
 */
export function entryHash(entry: Omit<ChangeEntry, 'hash'> & { hash?: string }, key?: string): string {
  const { hash: _own, ...rest } = entry;
  return digest(entry.mac === LEDGER_MAC, key)
    .update(canonicalJson(rest))
    .digest('hex');
}

/**
 * Whether the entry hashes to its `hash`. Stored text that is canonical JSON
 * is hashed as it is, with its own `"hash":"..."` member taken out (no
 * re-serialising); text that is not (a shipper reformatted it) falls back to
 * hashing the parsed entry's canonical JSON, so either way the verdict is the
 * same.
 */
function hashMatches(record: { entry: ChangeEntry; text?: string }, key: string | undefined): boolean {
  const { entry, text } = record;
  const keyed = entry.mac === LEDGER_MAC;
  if (keyed && key === undefined) return false;
  if (text !== undefined) {
    const member = `"hash":"${entry.hash}",`;
    const at = text.indexOf(member);
    if (
      at > 0 &&
      digest(keyed, key)
        .update(text.slice(0, at))
        .update(text.slice(at + member.length))
        .digest('hex') === entry.hash
    )
      return true;
  }
  return entryHash(entry, key) === entry.hash;
}

/**
 * Which key an entry is sealed with: `none` for a plain SHA-256 entry (it
 * must match that), `key` or `previous-key` for a keyed one whose HMAC one
 * of them makes, `wrong` when none does (or its plain hash does not match).
 */
export function entrySealedWith(record: { entry: ChangeEntry; text?: string }, keys: LedgerKeys): SealVerdict {
  if (record.entry.mac !== LEDGER_MAC) return hashMatches(record, undefined) ? 'none' : 'wrong';
  if (hashMatches(record, keys.key)) return 'key';
  return keys.previousKey !== undefined && hashMatches(record, keys.previousKey) ? 'previous-key' : 'wrong';
}

/** Where the chain starts: the genesis, or after pruning the last pruned entry (its seq and hash). */
export interface ChainAnchor {
  /** seq of the last entry pruned; 0 when nothing was. */
  seq: number;
  hash: string;
}

export const GENESIS_ANCHOR: ChainAnchor = Object.freeze({ seq: 0, hash: GENESIS_HASH });

/** One stored record, as an adapter reads it back in chain order. */
export type StoredRecord =
  /** `text`: the stored text it was parsed from, when the store keeps text (lets the walk hash the bytes instead of re-serialising). */
  | { ok: true; entry: ChangeEntry; text?: string }
  /** A line or stream item that is not an entry (a torn last line after a crash, an edit that broke the JSON). */
  | { ok: false; problem: string; id?: string };

export interface IntegrityReport {
  ok: boolean;
  /** Entries read (records that are not entries are not counted). */
  entries: number;
  /** The first entry whose hash, link or position is wrong, or the id found in a broken record. */
  firstBrokenId?: string;
  /** What was wrong there, in words. */
  problem?: string;
  /** The head svc keeps (the last entry it appended: seq and hash), to compare with a copy kept elsewhere. */
  head?: ChainAnchor;
  /** Whether the walk had SVC_LEDGER_KEY: keyed entries were checked as HMACs. */
  keyed?: boolean;
  /** With a key: entries sealed before the key was set (plain SHA-256), all before the first keyed one. */
  unkeyed?: number;
  /** With SVC_LEDGER_KEY_PREVIOUS: entries sealed with that key (before the rotation), all before the first sealed with the current one. */
  previousKey?: number;
  /**
   * Intents in the chain with no outcome entry after them (absent when none):
   * writes in flight, or whose answer svc never got (it stopped) and that
   * recovery has not closed yet. The ids are the oldest OPEN_INTENTS_LISTED.
   */
  openIntents?: { count: number; ids: string[] };
}

/** At most this many open intents are named in an integrity report (the count is always whole). */
export const OPEN_INTENTS_LISTED = 100;

/** What the walk compares the chain with: the head svc keeps, and the keys entries, the head and the anchor were sealed with. */
export interface ChainCheck extends LedgerKeys {
  /** The head svc keeps apart from the entries (head file, Redis head key): the chain must end there, and with a key it must be sealed. */
  head?: StoredHead;
}

/**
 * Walks the chain: each entry's hash must be the hash of its content (an
 * HMAC under the key for a keyed entry), its `prevHash` the hash of the
 * entry before it (the anchor for the first), its `seq` one more; and the
 * last entry must be the head svc keeps. An edited entry fails its own hash,
 * a removed one the link of the next, a reordered pair both, removed newest
 * entries the head. With a key, an entry sealed without it after a keyed one
 * was rewritten by someone without the key, and so was one sealed with the
 * previous key after one sealed with the current key; without the key, a
 * keyed entry cannot be checked and is reported. With a key, the anchor and
 * the head must carry their seals too (a head rewritten to hide the newest
 * entries removed has none that verifies), and a flaw the head carries (a
 * head svc found unsealed before appending after it) is reported. A record
 * that is not an entry (a torn last line) is reported, and the walk goes on
 * from the last good entry.
 */
export async function verifyChain(records: AsyncIterable<StoredRecord>, anchor: StoredAnchor, check: ChainCheck = {}): Promise<IntegrityReport> {
  const { head, key } = check;
  let prev: ChainAnchor = anchor;
  let entries = 0;
  let unkeyed = 0;
  let previousKey = 0;
  let keyedSeen = false;
  let currentKeySeen = false;
  let lastSealedWith: SealVerdict | undefined;
  let broken: { id?: string; problem: string } | undefined;
  // insertion order is chain order: the oldest open intents come first
  const open = new Set<string>();
  const fail = (id: string | undefined, problem: string) => (broken ??= { id, problem });
  for await (const record of records) {
    if (!record.ok) {
      fail(record.id, record.problem);
      continue;
    }
    const e = record.entry;
    entries++;
    if (e.type === 'intent') open.add(e.id);
    if (typeof e.intentId === 'string') open.delete(e.intentId);
    if (broken) {
      prev = { seq: e.seq, hash: e.hash };
      continue;
    }
    const keyed = e.mac === LEDGER_MAC;
    const sealedWith = keyed && key === undefined ? undefined : entrySealedWith(record, check);
    if (keyed && key === undefined) fail(e.id, `entry ${e.id} is sealed with a key (HMAC): set SVC_LEDGER_KEY to verify it`);
    else if (!keyed && key !== undefined && keyedSeen)
      fail(e.id, `entry ${e.id} is not sealed with the key although an entry before it is: it was rewritten without the key`);
    else if (sealedWith === 'wrong') fail(e.id, `entry ${e.id} does not match its hash: it was changed after it was written`);
    else if (sealedWith === 'previous-key' && currentKeySeen)
      fail(
        e.id,
        `entry ${e.id} is sealed with SVC_LEDGER_KEY_PREVIOUS although an entry before it is sealed with SVC_LEDGER_KEY: it was written by someone holding only the previous key`,
      );
    else if (e.prevHash !== prev.hash) fail(e.id, `entry ${e.id} does not follow the entry before it: an entry was removed or moved`);
    else if (e.seq !== prev.seq + 1) fail(e.id, `entry ${e.id} has position ${e.seq} where ${prev.seq + 1} was expected`);
    keyedSeen ||= keyed;
    currentKeySeen ||= sealedWith === 'key';
    if (!keyed && key !== undefined) unkeyed++;
    if (sealedWith === 'previous-key') previousKey++;
    lastSealedWith = sealedWith;
    prev = { seq: e.seq, hash: e.hash };
  }
  const anchored = anchorProblem(anchor, check);
  if (anchored) fail(undefined, anchored);
  if (head) checkHead(head, prev, anchor, check, lastSealedWith, fail);
  return {
    ok: !broken,
    entries,
    ...(broken ? { ...(broken.id ? { firstBrokenId: broken.id } : {}), problem: broken.problem } : {}),
    ...(head ? { head: { seq: head.seq, hash: head.hash } } : {}),
    ...(key !== undefined ? { keyed: true, ...(unkeyed ? { unkeyed } : {}), ...(previousKey ? { previousKey } : {}) } : {}),
    ...(open.size ? { openIntents: { count: open.size, ids: [...open].slice(0, OPEN_INTENTS_LISTED) } } : {}),
  };
}

/** The chain must end at the head, and with a key the head must be sealed and carry no flaw retention has not passed yet. */
function checkHead(
  head: StoredHead,
  end: ChainAnchor,
  anchor: ChainAnchor,
  keys: LedgerKeys,
  lastSealedWith: SealVerdict | undefined,
  fail: (id: undefined, problem: string) => void,
) {
  if (head.seq > end.seq)
    fail(undefined, `the chain ends at position ${end.seq} but svc appended up to position ${head.seq}: the newest ${head.seq - end.seq} entries were removed`);
  else if (head.seq < end.seq)
    fail(undefined, `the chain goes on past the head svc keeps (position ${head.seq}) to position ${end.seq}: entries were added outside svc`);
  else if (head.hash !== end.hash) fail(undefined, `the last entry (position ${end.seq}) is not the one svc appended: its hash differs from the head`);
  // once retention has pruned past the entry appended after a flaw, what the flaw may have hidden is older than retention too
  const flaw = flawOfHead(head, keys, head.seq === end.seq && end.seq > anchor.seq ? lastSealedWith : undefined);
  if (flaw && flaw.seq >= anchor.seq) fail(undefined, headFlawProblem(flaw));
}

/** The record made an entry: its place in the chain, its id and time, and its hash. Pure. */
export function sealEntry(record: ChangeRecord, place: { seq: number; prevHash: string; atMs: number; random8Hex: string }, key?: string): ChangeEntry {
  const unsealed = {
    ...record,
    id: newEntryId(place.seq, place.random8Hex),
    seq: place.seq,
    at: new Date(place.atMs).toISOString(),
    prevHash: place.prevHash,
    ...(key !== undefined ? { mac: LEDGER_MAC } : {}),
  };
  return { ...unsealed, hash: entryHash(unsealed, key) };
}
