import { randomBytes } from 'node:crypto';
import { ExecutionError } from '../../domain/errors.js';
import type { ChangeEntry, ChangeFilter, ChangePage, ChangePageRequest, ChangeRecord } from '../../domain/ledger/change-entry.js';
import { keysOf, seqOfId } from '../../domain/ledger/change-keys.js';
import { GENESIS_ANCHOR, sealEntry, type ChainAnchor, type StoredRecord } from '../../domain/ledger/hash-chain.js';
import { entryFromText, entryText, recordFromText } from '../../domain/ledger/ledger-text.js';
import { checkIntentFields, intentNotOpen } from '../../domain/ledger/intents.js';
import type { ChangeLedger, LedgerChain } from '../../domain/ports/change-ledger.js';
import type { Clock } from '../../domain/ports/clock.js';
import { LedgerIndex } from './ledger-index.js';
import type { RedisConnection } from '../redis/redis-connection.js';

/**
 * Compare-and-append: the entry goes on the stream only if the head of the
 * chain is still the one it was sealed after (KEYS: stream, head, open
 * intents; ARGV: expected head hash, seq, entry, entry hash, genesis hash,
 * the intent this entry opens or '', the intent it closes or ''). An intent
 * is closed by removing it from the open-intents hash in the same script:
 * of two replicas closing one intent at once, one removes it and appends,
 * the other is answered {2} and appends nothing. {1} when appended; {0,
 * seq, hash} with the head that won meanwhile, for the next attempt.
 */
const APPEND_SCRIPT = `
local head = redis.call('HMGET', KEYS[2], 'seq', 'hash')
local seq = tonumber(head[1]) or 0
local hash = head[2] or ARGV[5]
if hash ~= ARGV[1] then return {0, seq, hash} end
if ARGV[7] ~= '' and redis.call('HDEL', KEYS[3], ARGV[7]) == 0 then return {2} end
redis.call('XADD', KEYS[1], ARGV[2] .. '-1', 'e', ARGV[3])
redis.call('HSET', KEYS[2], 'seq', ARGV[2], 'hash', ARGV[4])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[3], ARGV[6], ARGV[2]) end
return {1}
`;

/**
 * Trims the stream below the first kept seq and moves the anchor there, never backwards, and forgets open intents
 * trimmed with it (KEYS: stream, anchor, open intents; ARGV: anchor seq, anchor hash).
 */
const PRUNE_SCRIPT = `
local cur = tonumber(redis.call('HGET', KEYS[2], 'seq')) or 0
if tonumber(ARGV[1]) <= cur then return 0 end
redis.call('XTRIM', KEYS[1], 'MINID', (tonumber(ARGV[1]) + 1) .. '-0')
redis.call('HSET', KEYS[2], 'seq', ARGV[1], 'hash', ARGV[2])
local open = redis.call('HGETALL', KEYS[3])
for i = 1, #open, 2 do
  if tonumber(open[i + 1]) <= tonumber(ARGV[1]) then redis.call('HDEL', KEYS[3], open[i]) end
end
return 1
`;

const MAX_ATTEMPTS = 100;
const BATCH = 2000;
const streamId = (seq: number) => `${seq}-1`;
const seqOfStreamId = (id: string) => Number(id.slice(0, id.indexOf('-')));

export interface RedisChangeLedgerOptions {
  clock: Clock;
  random?: () => string;
  /** SVC_LEDGER_KEY: entries are sealed with an HMAC under it. */
  key?: string;
}

/**
 * ChangeLedger on a Redis stream, one for every replica: `<prefix>ledger`
 * holds the entries (stream id `<seq>-1`, field `e`: the canonical JSON),
 * `<prefix>ledger:head` the seq and hash of the last, `<prefix>ledger:anchor`
 * what pruning left the chain to follow. Redis has no SHA-256 in Lua, so an
 * entry is sealed here against the head it read and appended by a script
 * only if that head has not moved (else sealed again against the new head):
 * replicas appending at once keep one unbroken chain. Each replica keeps an
 * index of the entries' keys, caught up from the stream before each list.
 */
export class RedisChangeLedger implements ChangeLedger {
  private readonly random: () => string;
  private readonly index = new LedgerIndex<string>();
  private head: ChainAnchor | undefined;
  /** The last stream id this replica's index has read. */
  private seen = '-';

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisChangeLedgerOptions,
  ) {
    this.random = options.random ?? (() => randomBytes(4).toString('hex'));
  }

  private get keys() {
    return {
      stream: this.redis.key('ledger'),
      head: this.redis.key('ledger', 'head'),
      anchor: this.redis.key('ledger', 'anchor'),
      open: this.redis.key('ledger', 'open'),
    };
  }

  async append(record: ChangeRecord): Promise<ChangeEntry> {
    checkIntentFields(record);
    const k = this.keys;
    let head = this.head ?? (await this.readHead());
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const place = { seq: head.seq + 1, prevHash: head.hash, atMs: this.options.clock.now(), random8Hex: this.random() };
      const entry = sealEntry(record, place, this.options.key);
      const text = entryText(entry);
      const result = (await this.redis.run({ command: 'EVAL', target: 'ledger', what: 'append a ledger entry' }, (c) =>
        c.eval(
          APPEND_SCRIPT,
          3,
          k.stream,
          k.head,
          k.open,
          head.hash,
          String(entry.seq),
          text,
          entry.hash,
          GENESIS_ANCHOR.hash,
          entry.type === 'intent' ? entry.id : '',
          record.intentId ?? '',
        ),
      )) as [number, number?, string?];
      if (result[0] === 2) throw intentNotOpen(record.intentId!);
      if (result[0] === 1) {
        this.head = { seq: entry.seq, hash: entry.hash };
        return entry;
      }
      head = { seq: Number(result[1]), hash: String(result[2]) };
    }
    throw new ExecutionError(`The change ledger could not append after ${MAX_ATTEMPTS} attempts: other replicas kept appending first`);
  }

  async get(id: string): Promise<ChangeEntry | undefined> {
    const seq = seqOfId(id);
    if (seq === undefined) return undefined;
    const items = await this.redis.run({ command: 'XRANGE', target: 'ledger', what: 'read a ledger entry' }, (c) =>
      c.xrange(this.keys.stream, streamId(seq), streamId(seq)),
    );
    const entry = items.length ? entryFromText(fieldOf(items[0][1])) : undefined;
    return entry?.id === id ? entry : undefined;
  }

  async list(filter: ChangeFilter, page: ChangePageRequest): Promise<ChangePage> {
    await this.catchUp();
    const rows = this.index.query(filter, page);
    const shown = rows.slice(0, page.limit);
    const texts = await this.redis.run({ command: 'XRANGE', target: 'ledger', what: 'read ledger entries' }, async (c) => {
      const p = c.pipeline();
      for (const r of shown) p.xrange(this.keys.stream, r.loc, r.loc);
      return ((await p.exec()) ?? []).map(([err, items]) => (err ? undefined : (items as [string, string[]][])[0]));
    });
    const entries = texts.map((item) => (item ? entryFromText(fieldOf(item[1])) : undefined)).filter((e): e is ChangeEntry => e !== undefined);
    return { entries, ...(rows.length > page.limit ? { nextBeforeSeq: shown.at(-1)!.seq } : {}) };
  }

  async openIntents(): Promise<ChangeEntry[]> {
    const open = await this.redis.run({ command: 'HGETALL', target: 'ledger', what: 'read the open intents' }, (c) => c.hgetall(this.keys.open));
    const wanted = Object.entries(open)
      .map(([id, seq]) => ({ id, seq: Number(seq) }))
      .filter((o) => Number.isSafeInteger(o.seq) && o.seq > 0)
      .sort((a, b) => a.seq - b.seq);
    if (!wanted.length) return [];
    const items = await this.redis.run({ command: 'XRANGE', target: 'ledger', what: 'read the open intents' }, async (c) => {
      const p = c.pipeline();
      for (const o of wanted) p.xrange(this.keys.stream, streamId(o.seq), streamId(o.seq));
      return ((await p.exec()) ?? []).map(([err, found]) => (err ? undefined : (found as [string, string[]][])[0]));
    });
    return items
      .map((item, i) => {
        const entry = item ? entryFromText(fieldOf(item[1])) : undefined;
        return entry?.id === wanted[i].id && entry.type === 'intent' ? entry : undefined;
      })
      .filter((e): e is ChangeEntry => e !== undefined);
  }

  async chain(): Promise<LedgerChain> {
    const k = this.keys;
    // one transaction: the anchor, the head and the last stream id as of the same moment
    const [anchorFields, headFields, last] = await this.redis.run({ command: 'MULTI', target: 'ledger', what: 'read the ledger' }, async (c) => {
      const r = (await c.multi().hgetall(k.anchor).hgetall(k.head).xrevrange(k.stream, '+', '-', 'COUNT', 1).exec()) ?? [];
      return [r[0]?.[1] as Record<string, string>, r[1]?.[1] as Record<string, string>, r[2]?.[1] as [string, string[]][]];
    });
    const anchor = anchorFields?.seq ? { seq: Number(anchorFields.seq), hash: anchorFields.hash } : GENESIS_ANCHOR;
    // every append sets the head key: a stream with entries and no head key had it removed, and the walk says so
    const head = headFields?.seq ? { seq: Number(headFields.seq), hash: headFields.hash } : GENESIS_ANCHOR;
    const end = last?.[0]?.[0];
    const redis = this.redis;
    async function* records(): AsyncGenerator<StoredRecord> {
      if (!end) return;
      let from = '-';
      for (;;) {
        const items = await redis.run({ command: 'XRANGE', target: 'ledger', what: 'read the ledger' }, (c) => c.xrange(k.stream, from, end, 'COUNT', BATCH));
        for (const [id, fields] of items) yield recordFromText(fieldOf(fields), `stream item ${id}`);
        if (items.length < BATCH) return;
        from = `(${items.at(-1)![0]}`;
      }
    }
    return { anchor, head, records: records() };
  }

  async prune(cutoffMs: number): Promise<number> {
    await this.catchUp();
    const kept = this.index.firstKeptFrom(cutoffMs);
    const last = this.index.last();
    if (!last) return 0;
    const next = kept ? { seq: kept.seq - 1, hash: (await this.get(kept.id))?.prevHash } : { seq: last.seq, hash: (await this.get(last.id))?.hash };
    if (!next.hash || next.seq <= 0) return 0;
    const before = this.index.size;
    const k = this.keys;
    const done = await this.redis.run({ command: 'EVAL', target: 'ledger', what: 'prune the ledger' }, (c) =>
      c.eval(PRUNE_SCRIPT, 3, k.stream, k.anchor, k.open, String(next.seq), next.hash!),
    );
    if (done !== 1) return 0;
    this.index.dropThrough(next.seq);
    return before - this.index.size;
  }

  private async readHead(): Promise<ChainAnchor> {
    const [seq, hash] = await this.redis.run({ command: 'HMGET', target: 'ledger', what: 'read the ledger head' }, (c) =>
      c.hmget(this.keys.head, 'seq', 'hash'),
    );
    return seq && hash ? { seq: Number(seq), hash } : GENESIS_ANCHOR;
  }

  /** Brings this replica's index up to the stream: new entries in, pruned ones out. */
  private async catchUp(): Promise<void> {
    const k = this.keys;
    const anchorSeq = await this.redis.run({ command: 'HGET', target: 'ledger', what: 'read the ledger anchor' }, (c) => c.hget(k.anchor, 'seq'));
    this.index.dropThrough(Number(anchorSeq ?? 0));
    for (;;) {
      const from = this.seen === '-' ? '-' : `(${this.seen}`;
      const items = await this.redis.run({ command: 'XRANGE', target: 'ledger', what: 'read ledger entries' }, (c) =>
        c.xrange(k.stream, from, '+', 'COUNT', BATCH),
      );
      for (const [id, fields] of items) {
        const entry = entryFromText(fieldOf(fields));
        if (entry && entry.seq === seqOfStreamId(id)) this.index.add({ ...keysOf(entry), loc: id });
        this.seen = id;
      }
      if (items.length < BATCH) return;
    }
  }
}

function fieldOf(fields: string[]): string {
  const i = fields.indexOf('e');
  return i >= 0 && i % 2 === 0 ? (fields[i + 1] ?? '') : '';
}
