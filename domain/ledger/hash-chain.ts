import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { GENESIS_HASH, type ChangeEntry, type ChangeRecord } from './change-entry.js';
import { newEntryId } from './change-keys.js';

/** SHA-256 (hex) of an entry's canonical JSON without its own `hash`: `prevHash` is inside, which makes the chain. */
export function entryHash(entry: Omit<ChangeEntry, 'hash'> & { hash?: string }): string {
  const { hash: _own, ...rest } = entry;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

/**
 * Whether the entry hashes to its `hash`. Stored text that is canonical JSON
 * is hashed as it is, with its own `"hash":"..."` member taken out (no
 * re-serialising); text that is not (a shipper reformatted it) falls back to
 * hashing the parsed entry's canonical JSON, so either way the verdict is the
 * same.
 */
function hashMatches(record: { entry: ChangeEntry; text?: string }): boolean {
  const { entry, text } = record;
  if (text !== undefined) {
    const member = `"hash":"${entry.hash}",`;
    const at = text.indexOf(member);
    if (
      at > 0 &&
      createHash('sha256')
        .update(text.slice(0, at))
        .update(text.slice(at + member.length))
        .digest('hex') === entry.hash
    )
      return true;
  }
  return entryHash(entry) === entry.hash;
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
}

/**
 * Walks the chain: each entry's hash must be the hash of its content, its
 * `prevHash` the hash of the entry before it (the anchor for the first), its
 * `seq` one more. An edited entry fails its own hash, a removed one the link
 * of the next, a reordered pair both. A record that is not an entry (a torn
 * last line) is reported, and the walk goes on from the last good entry.
 */
export async function verifyChain(records: AsyncIterable<StoredRecord>, anchor: ChainAnchor): Promise<IntegrityReport> {
  let prev = anchor;
  let entries = 0;
  let broken: { id?: string; problem: string } | undefined;
  const fail = (id: string | undefined, problem: string) => (broken ??= { id, problem });
  for await (const record of records) {
    if (!record.ok) {
      fail(record.id, record.problem);
      continue;
    }
    const e = record.entry;
    entries++;
    if (broken) {
      prev = { seq: e.seq, hash: e.hash };
      continue;
    }
    if (!hashMatches(record)) fail(e.id, `entry ${e.id} does not match its hash: it was changed after it was written`);
    else if (e.prevHash !== prev.hash) fail(e.id, `entry ${e.id} does not follow the entry before it: an entry was removed or moved`);
    else if (e.seq !== prev.seq + 1) fail(e.id, `entry ${e.id} has position ${e.seq} where ${prev.seq + 1} was expected`);
    prev = { seq: e.seq, hash: e.hash };
  }
  return { ok: !broken, entries, ...(broken ? { ...(broken.id ? { firstBrokenId: broken.id } : {}), problem: broken.problem } : {}) };
}

/** The record made an entry: its place in the chain, its id and time, and its hash. Pure. */
export function sealEntry(record: ChangeRecord, place: { seq: number; prevHash: string; atMs: number; random8Hex: string }): ChangeEntry {
  const unsealed = { ...record, id: newEntryId(place.seq, place.random8Hex), seq: place.seq, at: new Date(place.atMs).toISOString(), prevHash: place.prevHash };
  return { ...unsealed, hash: entryHash(unsealed) };
}
