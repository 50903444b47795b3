import { DependencyError } from '../../domain/errors.js';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';
import { GENESIS_ANCHOR } from '../../domain/ledger/hash-chain.js';
import { storedHeadOf, type StoredHead } from '../../domain/ledger/ledger-seal.js';

/**
 * Compare-and-append: the entry goes on the stream only if the head of the
 * chain is still the one it was sealed after, seal and all (KEYS: stream,
 * head, open intents; ARGV: expected head hash, seq, entry, entry hash,
 * genesis hash, the intent this entry opens or '', the intent it closes or
 * '', expected head seal or '', the new head's seal or '', the new head's
 * flaw (JSON) or ''). An intent is closed by removing it from the
 * open-intents hash in the same script: of two replicas closing one intent
 * at once, one removes it and appends, the other is answered {2} and appends
 * nothing. {1} when appended; {0} when the head moved meanwhile (the caller
 * reads it again before its next attempt); {3, error} when the stream refuses
 * the id (it went past the head: its newest items were deleted and the head
 * rewritten), before anything is written.
 */
export const APPEND_SCRIPT = `
local head = redis.call('HMGET', KEYS[2], 'hash', 'mac')
local hash = head[1] or ARGV[5]
local mac = head[2] or ''
if hash ~= ARGV[1] or mac ~= ARGV[8] then return {0} end
if ARGV[7] ~= '' and redis.call('HEXISTS', KEYS[3], ARGV[7]) == 0 then return {2} end
local added = redis.pcall('XADD', KEYS[1], ARGV[2] .. '-1', 'e', ARGV[3])
if type(added) == 'table' and added.err then return {3, added.err} end
if ARGV[7] ~= '' then redis.call('HDEL', KEYS[3], ARGV[7]) end
redis.call('HSET', KEYS[2], 'seq', ARGV[2], 'hash', ARGV[4])
if ARGV[9] ~= '' then redis.call('HSET', KEYS[2], 'mac', ARGV[9]) else redis.call('HDEL', KEYS[2], 'mac') end
if ARGV[10] ~= '' then redis.call('HSET', KEYS[2], 'flaw', ARGV[10]) else redis.call('HDEL', KEYS[2], 'flaw') end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[3], ARGV[6], ARGV[2]) end
return {1}
`;

/** What APPEND_SCRIPT answers: appended, the head moved meanwhile, the intent not open, the stream past the head. */
export type AppendResult = [1] | [0] | [2] | [3, string];

/** APPEND_SCRIPT's ARGV: the head the entry was sealed after (hash, and seal as stored), the entry, the intent it closes, the head it makes. */
export function appendArgv(expected: { hash: string; mac: string }, entry: ChangeEntry, text: string, closes: string | undefined, next: StoredHead): string[] {
  const opens = entry.type === 'intent' ? entry.id : '';
  const flaw = next.flaw ? JSON.stringify(next.flaw) : '';
  return [expected.hash, String(entry.seq), text, entry.hash, GENESIS_ANCHOR.hash, opens, closes ?? '', expected.mac, next.mac ?? '', flaw];
}

/** The refusal of an append whose id the stream no longer takes: its newest items were deleted (XDEL) and the head rewritten behind them. */
export function streamPastHead(seq: number, error: string): DependencyError {
  return new DependencyError(
    'ledger',
    `The change ledger on Redis cannot append at position ${seq}: its stream already went past the head svc keeps (newest items were deleted and the head rewritten?); nothing was recorded: run svc changes verify (${String(error).slice(0, 200)})`,
  );
}

/**
 * Trims the stream below the first kept seq and moves the anchor there, never backwards, and forgets open intents
 * trimmed with it (KEYS: stream, anchor, open intents; ARGV: anchor seq, anchor hash, anchor seal or '').
 */
export const PRUNE_SCRIPT = `
local cur = tonumber(redis.call('HGET', KEYS[2], 'seq')) or 0
if tonumber(ARGV[1]) <= cur then return 0 end
redis.call('XTRIM', KEYS[1], 'MINID', (tonumber(ARGV[1]) + 1) .. '-0')
redis.call('HSET', KEYS[2], 'seq', ARGV[1], 'hash', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], 'mac', ARGV[3]) else redis.call('HDEL', KEYS[2], 'mac') end
local open = redis.call('HGETALL', KEYS[3])
for i = 1, #open, 2 do
  if tonumber(open[i + 1]) <= tonumber(ARGV[1]) then redis.call('HDEL', KEYS[3], open[i]) end
end
return 1
`;

/** A head from the fields HMGET answers (seq, hash, mac, flaw): judged as parsed, and its seal as stored. */
export function headFromFields([seq, hash, mac, flaw]: [string | null, string | null, string | null, string | null]): [StoredHead, string] {
  if (!seq || !hash) return [GENESIS_ANCHOR, mac ?? ''];
  let parsedFlaw: unknown;
  try {
    parsedFlaw = flaw ? JSON.parse(flaw) : undefined;
  } catch {
    parsedFlaw = null;
  }
  // a head whose fields do not parse is built on as unsealed (its flaw then says so)
  return [storedHeadOf({ seq: Number(seq), hash, mac: mac ?? undefined, flaw: parsedFlaw }) ?? { seq: Number(seq) || 0, hash }, mac ?? ''];
}

/** The entry's text in a stream item's fields (`e`). */
export function fieldOf(fields: string[]): string {
  const i = fields.indexOf('e');
  return i >= 0 && i % 2 === 0 ? (fields[i + 1] ?? '') : '';
}
