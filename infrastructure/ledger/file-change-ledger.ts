import { randomBytes } from 'node:crypto';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { DependencyError, DomainError } from '../../domain/errors.js';
import {
  MAX_ENTRY_BYTES,
  type ChangeEntry,
  type ChangeFilter,
  type ChangePage,
  type ChangePageRequest,
  type ChangeRecord,
} from '../../domain/ledger/change-entry.js';
import { keysOf } from '../../domain/ledger/change-keys.js';
import { GENESIS_ANCHOR, sealEntry, type ChainAnchor, type StoredRecord } from '../../domain/ledger/hash-chain.js';
import { sealAnchor, sealHead, type LedgerKeys, type StoredAnchor, type StoredHead } from '../../domain/ledger/ledger-seal.js';
import { entryFromText, entryText } from '../../domain/ledger/ledger-text.js';
import { checkIntentFields, intentNotOpen } from '../../domain/ledger/intents.js';
import type { ChangeLedger, LedgerChain } from '../../domain/ports/change-ledger.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { Logger } from '../../domain/ports/logger.js';
import { isErrno, writeFileDurably } from '../fs/durable-file.js';
import { KeyedMutex } from '../sessions/keyed-mutex.js';
import { anchorLine, anchorOf, lineRecord } from './ledger-file-format.js';
import { copyBytes, fileLines } from './ledger-file-lines.js';
import { HEAD_FILE, LedgerHeadFile } from './ledger-head-file.js';
import { LedgerIndex } from './ledger-index.js';

export interface FileChangeLedgerOptions {
  /** `$SVC_DATA_DIR/ledger`; created (0700) on first use. */
  dir: string;
  clock: Clock;
  logger?: Logger;
  /** 8 lowercase hex digits; default crypto.randomBytes(4). */
  random?: () => string;
  /** SVC_LEDGER_KEY: entries, the head and the anchor are sealed with an HMAC under it. */
  key?: string;
  /** SVC_LEDGER_KEY_PREVIOUS: a head sealed with it before a rotation is built on as sealed. */
  previousKey?: string;
  /** SVC_LEDGER_ACCEPT_HEAD: an unsealed head the operator accepted. */
  acceptHead?: ChainAnchor;
}

/** The whole ledger: one entry per line. */
export const LEDGER_FILE = 'changes.jsonl';
const MAX_LINE = MAX_ENTRY_BYTES + 1024;

/**
 * ChangeLedger in one append-only JSON-lines file, `<dir>/changes.jsonl`
 * (0600), so a log shipper can follow it as it is.
 *
 * - One writer per directory (like the file session store): appends are
 *   serialised within this process; run one replica per data directory.
 * - Each append is one write of the whole line, then fsync, before it
 *   resolves. A crash during a write can leave a last line cut short; it is
 *   found when the file is opened, logged, kept byte for byte (ended with a
 *   newline so the next entry starts on its own line), and reported by every
 *   integrity walk: never dropped. The next entry follows the last whole one.
 * - Lists read an index of every entry's keys built when the file is opened
 *   (then kept up to date by appends), and only the page's lines from disk;
 *   `chain` reads the file itself.
 * - Pruning writes the kept lines, after an anchor line naming the last
 *   pruned entry, to a temp file and renames it over the ledger.
 */
export class FileChangeLedger implements ChangeLedger {
  private readonly lock = new KeyedMutex();
  private readonly random: () => string;
  private readonly file: string;
  private handle: FileHandle | undefined;
  private opening: Promise<FileHandle> | undefined;
  private readonly index = new LedgerIndex<{ offset: number; length: number }>();
  private size = 0;
  private head: StoredHead = GENESIS_ANCHOR;
  private anchor: StoredAnchor = GENESIS_ANCHOR;
  /** The ledger key(s): what the head is judged and sealed with. */
  private readonly seal: LedgerKeys;
  /** The file ends in a line cut short: the next append first ends it. */
  private tornTail = false;

  private readonly headFile: LedgerHeadFile;

  constructor(private readonly options: FileChangeLedgerOptions) {
    this.random = options.random ?? (() => randomBytes(4).toString('hex'));
    this.file = path.join(options.dir, LEDGER_FILE);
    this.headFile = new LedgerHeadFile(path.join(options.dir, HEAD_FILE));
    this.seal = { key: options.key, previousKey: options.previousKey, acceptHead: options.acceptHead };
  }

  async append(record: ChangeRecord): Promise<ChangeEntry> {
    checkIntentFields(record);
    return this.guard('append an entry', () =>
      this.lock.run('ledger', async () => {
        const handle = await this.opened();
        // under the lock: one outcome closes an intent, the second is refused
        if (record.intentId !== undefined && !this.index.isOpenIntent(record.intentId)) throw intentNotOpen(record.intentId);
        const place = { seq: this.head.seq + 1, prevHash: this.head.hash, atMs: this.options.clock.now(), random8Hex: this.random() };
        const entry = sealEntry(record, place, this.options.key);
        const line = `${entryText(entry)}\n`;
        if (this.tornTail) {
          await handle.write('\n', this.size);
          this.size += 1;
          this.tornTail = false;
        }
        const bytes = Buffer.from(line, 'utf8');
        await handle.write(bytes, 0, bytes.length, this.size);
        await handle.datasync();
        this.index.add({ ...keysOf(entry), loc: { offset: this.size, length: bytes.length - 1 } });
        this.size += bytes.length;
        // a flaw found in the head before is carried, so what it may hide stays reported
        this.head = sealHead({ seq: entry.seq, hash: entry.hash, flaw: this.head.flaw }, this.options.key);
        // the line is durable first: a crash between the two leaves the head one behind, which opening repairs
        await this.headFile.write(this.head);
        return entry;
      }),
    );
  }

  async get(id: string): Promise<ChangeEntry | undefined> {
    return this.guard('read an entry', async () => {
      await this.opened();
      const row = this.index.find(id);
      return row ? this.readAt(row.loc) : undefined;
    });
  }

  async list(filter: ChangeFilter, page: ChangePageRequest): Promise<ChangePage> {
    return this.guard('list entries', async () => {
      await this.opened();
      const rows = this.index.query(filter, page);
      const shown = rows.slice(0, page.limit);
      const entries = (await Promise.all(shown.map((r) => this.readAt(r.loc)))).filter((e): e is ChangeEntry => e !== undefined);
      return { entries, ...(rows.length > page.limit ? { nextBeforeSeq: shown.at(-1)!.seq } : {}) };
    });
  }

  async openIntents(): Promise<ChangeEntry[]> {
    return this.guard('read the open intents', async () => {
      await this.opened();
      const entries = await Promise.all(this.index.openIntents().map((r) => this.readAt(r.loc)));
      return entries.filter((e): e is ChangeEntry => e !== undefined);
    });
  }

  async chain(): Promise<LedgerChain> {
    // a snapshot of the file and the head as they are now: appends after this are not walked
    const [handle, head] = await this.guard('read the ledger', () =>
      this.lock.run('ledger', async () => {
        await this.opened();
        return [await open(this.file, 'r').catch(absentIsNull), this.head] as const;
      }),
    );
    if (!handle) return { anchor: GENESIS_ANCHOR, head, records: (async function* () {})() };
    const lines = fileLines(handle, MAX_LINE, (await handle.stat()).size);
    const first = await lines.next();
    const anchor = first.done ? undefined : anchorOf(first.value.text);
    async function* records(): AsyncGenerator<StoredRecord> {
      try {
        if (!first.done && !anchor) yield lineRecord(first.value);
        for await (const line of lines) yield lineRecord(line);
      } finally {
        await handle!.close();
      }
    }
    return { anchor: anchor ?? GENESIS_ANCHOR, head, records: records() };
  }

  async prune(cutoffMs: number): Promise<number> {
    return this.guard('prune the ledger', () =>
      this.lock.run('ledger', async () => {
        await this.opened();
        const kept = this.index.firstKeptFrom(cutoffMs);
        const pruned = kept ? kept.seq - 1 - this.anchor.seq : this.head.seq - this.anchor.seq;
        if (pruned <= 0) return 0;
        const next: ChainAnchor = kept ? { seq: kept.seq - 1, hash: (await this.readAt(kept.loc))!.prevHash } : this.head;
        await this.rewriteFrom(sealAnchor(next, this.options.key), kept?.loc.offset ?? this.size);
        return pruned;
      }),
    );
  }

  /** Closes the file (shutdown, tests). */
  async close(): Promise<void> {
    await this.lock.run('ledger', async () => {
      await this.handle?.close();
      await this.headFile.close();
      this.handle = undefined;
      this.opening = undefined;
    });
  }

  private async rewriteFrom(anchor: StoredAnchor, offset: number): Promise<void> {
    await writeFileDurably(this.file, async (out) => {
      await out.write(anchorLine(anchor));
      await copyBytes(this.handle!, offset, this.size, out);
    });
    await this.handle!.close();
    this.handle = undefined;
    this.opening = undefined;
    await this.opened();
  }

  private opened(): Promise<FileHandle> {
    this.opening ??= this.load().catch((e) => {
      this.opening = undefined;
      throw e;
    });
    return this.opening;
  }

  /** Opens (creating) the file and reads it once: the index, the head of the chain, a torn last line. */
  private async load(): Promise<FileHandle> {
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    const handle = await open(this.file, 'a+', 0o600);
    this.index.clear();
    this.anchor = GENESIS_ANCHOR;
    this.head = GENESIS_ANCHOR;
    this.tornTail = false;
    let first = true;
    let end = 0;
    // the newest two entries: how they are sealed decides whether a head sealed with the previous key is one svc wrote
    let last: { entry: ChangeEntry; text: string }[] = [];
    for await (const line of fileLines(handle, MAX_LINE)) {
      end = line.offset + line.length + (line.terminated ? 1 : 0);
      const anchor = first ? anchorOf(line.text) : undefined;
      first = false;
      if (anchor) {
        this.anchor = anchor;
        this.head = { seq: anchor.seq, hash: anchor.hash };
        continue;
      }
      const entry = entryFromText(line.text);
      if (!line.terminated) this.tornTail = true;
      if (!entry) {
        this.options.logger?.error(
          line.terminated
            ? 'the ledger has a line that is not an entry: reported by the integrity check'
            : 'the ledger ends in a line cut short (a crash during an append): kept as it is and reported by the integrity check',
          { file: this.file, offset: line.offset, bytes: line.length },
        );
        continue;
      }
      this.index.add({ ...keysOf(entry), loc: { offset: line.offset, length: line.length } });
      if (entry.seq > this.head.seq) {
        this.head = { seq: entry.seq, hash: entry.hash };
        last = [...last.slice(-1), { entry, text: line.text }];
      }
    }
    this.size = end;
    this.handle = handle;
    this.head = await this.headFile.reconcile({ end: this.head, last }, this.anchor, this.seal, this.options.clock.now(), (message, fields) =>
      this.options.logger?.error(message, { file: this.file, ...fields }),
    );
    return handle;
  }

  private async readAt(loc: { offset: number; length: number }): Promise<ChangeEntry | undefined> {
    const buf = Buffer.allocUnsafe(loc.length);
    const { bytesRead } = await this.handle!.read(buf, 0, loc.length, loc.offset);
    return entryFromText(buf.subarray(0, bytesRead).toString('utf8'));
  }

  private async guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof DomainError) throw e;
      this.options.logger?.error('ledger failed', { what, error: (e as Error).message });
      throw new DependencyError('ledger', `The change ledger under ${this.options.dir} could not ${what}: ${(e as Error).message}`);
    }
  }
}

const absentIsNull = (e: unknown) => {
  if (isErrno(e, 'ENOENT')) return null;
  throw e;
};
