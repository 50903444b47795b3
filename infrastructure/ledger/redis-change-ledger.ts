import { randomBytes } from 'node:crypto';
import { ExecutionError } from '../../domain/errors.js';
import type { ChangeEntry, ChangeFilter, ChangePage, ChangePageRequest, ChangeRecord } from '../../domain/ledger/change-entry.js';
import { keysOf, seqOfId } from '../../domain/ledger/change-keys.js';
import { entrySealedWith, GENESIS_ANCHOR, sealEntry, type ChainAnchor, type StoredRecord } from '../../domain/ledger/hash-chain.js';
import {
  flawOfHead,
  headSealedWith,
  sealAnchor,
  sealHead,
  type LedgerKeys,
  type SealVerdict,
  type StoredAnchor,
  type StoredHead,
} from '../../domain/ledger/ledger-seal.js';
import { entryFromText, entryText, recordFromText } from '../../domain/ledger/ledger-text.js';
import { checkIntentFields, intentNotOpen } from '../../domain/ledger/intents.js';
import type { ChangeLedger, LedgerChain } from '../../domain/ports/change-ledger.js';
import type { Clock } from '../../domain/ports/clock.js';
import { ConcurrencyLimit } from '../../application/prompts/concurrency-limit.js';
import { LedgerIndex } from './ledger-index.js';
import { APPEND_SCRIPT, appendArgv, fieldOf, headFromFields, PRUNE_SCRIPT, streamPastHead, type AppendResult } from './redis-ledger-scripts.js';
import type { RedisConnection } from '../redis/redis-connection.js';

const MAX_ATTEMPTS = 100;
/** The most a replica waits, at random, before it tries again after another replica appended first. */
const MAX_BACKOFF_MS = 64;
const BATCH = 2000;
const streamId = (seq: number) => `${seq}-1`;
const seqOfStreamId = (id: string) => Number(id.slice(0, id.indexOf('-')));

export interface RedisChangeLedgerOptions {
  clock: Clock;
  random?: () => string;
  /** SVC_LEDGER_KEY: entries and the head are sealed with an HMAC under it. */
  key?: string;
  /** SVC_LEDGER_KEY_PREVIOUS: a head sealed with it before a rotation is built on as sealed. */
  previousKey?: string;
  /** SVC_LEDGER_ACCEPT_HEAD: an unsealed head the operator accepted. */
  acceptHead?: ChainAnchor;
  /** Waits between attempts after a lost race (tests pass their own); a timer by default. */
  pause?: (ms: number) => Promise<void>;
}

const timerPause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
  /** The head this replica last wrote (or judged, as read from the store). */
  private head: StoredHead | undefined;
  /** The ledger key(s): what heads are judged and sealed with. */
  private readonly seal: LedgerKeys;
  /** The last stream id this replica's index has read. */
  private seen = '-';
  /** This replica's appends, one at a time: they would only race each other for the same head. */
  private readonly appending = new ConcurrencyLimit(1);

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisChangeLedgerOptions,
  ) {
    this.random = options.random ?? (() => randomBytes(4).toString('hex'));
    this.seal = { key: options.key, previousKey: options.previousKey, acceptHead: options.acceptHead };
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
    return this.appending.run(() => this.appendRacing(record));
  }

  /**
   * Appends against the head, racing the other replicas: a lost race is tried again after a random wait that
   * grows with the losses, so a replica whose reply comes after another's does not lose to it every time.
   */
  private async appendRacing(record: ChangeRecord): Promise<ChangeEntry> {
    const k = this.keys;
    const pause = this.options.pause ?? timerPause;
    // the seal as stored, compared by the script (what is judged is the parsed head)
    let [head, storedMac] = this.head ? [this.head, this.head.mac ?? ''] : await this.readHead();
    let flaw = this.head ? head.flaw : await this.flawOf(head);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const place = { seq: head.seq + 1, prevHash: head.hash, atMs: this.options.clock.now(), random8Hex: this.random() };
      const entry = sealEntry(record, place, this.options.key);
      // a flaw found in the head before is carried, so what it may hide stays reported
      const next = sealHead({ seq: entry.seq, hash: entry.hash, flaw }, this.options.key);
      const argv = appendArgv({ hash: head.hash, mac: storedMac }, entry, entryText(entry), record.intentId, next);
      const result = (await this.redis.run({ command: 'EVAL', target: 'ledger', what: 'append a ledger entry' }, (c) =>
        c.eval(APPEND_SCRIPT, 3, k.stream, k.head, k.open, ...argv),
      )) as AppendResult;
      if (result[0] === 2) throw intentNotOpen(record.intentId!);
      if (result[0] === 3) throw streamPastHead(entry.seq, result[1]);
      if (result[0] === 1) {
        this.head = next;
        return entry;
      }
      // another replica appended meanwhile, or someone else wrote the head: after a wait, the head as it is
      // then (what the others appended while this one waited included), judged as read
      await pause(Math.floor(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** attempt)));
      [head, storedMac] = await this.readHead();
      flaw = await this.flawOf(head);
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
    const anchor: StoredAnchor = anchorFields?.seq
      ? { seq: Number(anchorFields.seq), hash: anchorFields.hash, ...(anchorFields.mac ? { mac: anchorFields.mac } : {}) }
      : GENESIS_ANCHOR;
    // every append sets the head key: a stream with entries and no head key had it removed, and the walk says so
    const [head] = headFromFields([headFields?.seq ?? null, headFields?.hash ?? null, headFields?.mac ?? null, headFields?.flaw ?? null]);
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
      c.eval(
        PRUNE_SCRIPT,
        3,
        k.stream,
        k.anchor,
        k.open,
        String(next.seq),
        next.hash!,
        sealAnchor({ seq: next.seq, hash: next.hash! }, this.options.key).mac ?? '',
      ),
    );
    if (done !== 1) return 0;
    this.index.dropThrough(next.seq);
    return before - this.index.size;
  }

  /** The head as stored, and its seal as stored (what the append script compares). */
  private async readHead(): Promise<[StoredHead, string]> {
    const fields = await this.redis.run({ command: 'HMGET', target: 'ledger', what: 'read the ledger head' }, (c) =>
      c.hmget(this.keys.head, 'seq', 'hash', 'mac', 'flaw'),
    );
    return headFromFields(fields as [string | null, string | null, string | null, string | null]);
  }

  /**
   * What is wrong with a head read from the store (see flawOfHead); for one
   * sealed with the previous key, the entry at its position decides whether
   * it is a rotation with no append since or a rewrite.
   */
  private async flawOf(head: StoredHead) {
    if (this.seal.key === undefined || head.seq === 0) return undefined;
    let atHead: SealVerdict | undefined;
    if (headSealedWith(head, this.seal) === 'previous-key') {
      const items = await this.redis.run({ command: 'XRANGE', target: 'ledger', what: 'read the entry at the ledger head' }, (c) =>
        c.xrange(this.keys.stream, streamId(head.seq), streamId(head.seq)),
      );
      const record = items.length ? recordFromText(fieldOf(items[0][1]), 'head entry') : undefined;
      atHead = record?.ok ? entrySealedWith(record, this.seal) : undefined;
    }
    return flawOfHead(head, this.seal, atHead, this.options.clock.now());
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
