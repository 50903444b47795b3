import { open, type FileHandle } from 'node:fs/promises';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';
import { entrySealedWith, type ChainAnchor } from '../../domain/ledger/hash-chain.js';
import { flawOfHead, headFlaw, sealHead, storedHeadOf, type LedgerKeys, type SealVerdict, type StoredHead } from '../../domain/ledger/ledger-seal.js';
import { isErrno } from '../fs/durable-file.js';

/** The head of the chain beside the ledger: `<dir>/head.json`. */
export const HEAD_FILE = 'head.json';
/** The head is written in place as this many bytes (JSON padded with spaces): one write within one disk sector, never a shorter file. */
const HEAD_BYTES = 512;

/** The end of the chain as the ledger file holds it, when it is opened. */
export interface ChainEnd {
  /** The last whole entry (or the anchor, or the genesis). */
  end: ChainAnchor;
  /** The newest two entries as stored: how they are sealed decides whether a head sealed with the previous key is one svc wrote. */
  last: readonly { entry: ChangeEntry; text: string }[];
}

/**
 * The seq and hash of the last entry appended, kept in its own file so an
 * integrity walk can tell a chain cut at its newest end from a whole one,
 * sealed with SVC_LEDGER_KEY so whoever lacks the key cannot rewrite it to
 * match a cut. Written in place after each append's line is durable, then
 * fsynced.
 */
export class LedgerHeadFile {
  private handle: FileHandle | undefined;

  constructor(private readonly file: string) {}

  /** The head as stored; `missing` when there is no file, `unreadable` when its content is not a head. */
  async read(): Promise<StoredHead | 'missing' | 'unreadable'> {
    let text: string;
    try {
      const h = await open(this.file, 'r');
      try {
        const buf = Buffer.alloc(HEAD_BYTES);
        const { bytesRead } = await h.read(buf, 0, HEAD_BYTES, 0);
        text = buf.subarray(0, bytesRead).toString('utf8');
      } finally {
        await h.close();
      }
    } catch (e) {
      if (isErrno(e, 'ENOENT')) return 'missing';
      throw e;
    }
    try {
      const v = JSON.parse(text) as Parameters<typeof storedHeadOf>[0] | null;
      return (v && typeof v === 'object' && storedHeadOf(v)) || 'unreadable';
    } catch {
      return 'unreadable';
    }
  }

  /**
   * The head the chain must end at, when the ledger is opened: the stored
   * one. One entry past it that follows it is a crash between an append's
   * line and its head write: the head moves there. A chain that ends short of
   * it keeps the stored head, so the next entry links to it and the gap stays
   * visible. No head file (a ledger written before there was one, or
   * removed) or an unreadable one: the chain's end, logged as an error. With
   * a key, a head not sealed as svc seals it (or none at all) is built on
   * but its flaw is written into the head, sealed, and reported by every
   * walk until retention passes it or the operator accepts it.
   */
  async reconcile(
    chain: ChainEnd,
    anchor: ChainAnchor,
    keys: LedgerKeys,
    nowMs: number,
    logError: (message: string, fields: Record<string, unknown>) => void,
  ): Promise<StoredHead> {
    const { end, last } = chain;
    const sealedWith = (record: ChainEnd['last'][number] | undefined): SealVerdict | undefined => record && entrySealedWith(record, keys);
    const stored = await this.read();
    if (stored === 'missing' || stored === 'unreadable') {
      if (end.seq > anchor.seq || stored === 'unreadable')
        logError(`the ledger's head file is ${stored}: the head is taken from the chain, so newest entries removed before now cannot show`, {
          seq: end.seq,
        });
      if (end.seq === 0) return end;
      return this.write(sealHead({ ...end, flaw: headFlaw(end, 'missing', keys, nowMs) }, keys.key));
    }
    if (end.seq === stored.seq + 1 && last.at(-1)?.entry.prevHash === stored.hash)
      return this.write(sealHead({ ...end, flaw: flawOfHead(stored, keys, sealedWith(last.at(-2)), nowMs) }, keys.key));
    if (end.seq !== stored.seq || end.hash !== stored.hash)
      logError('the ledger does not end at the head svc wrote: reported by the integrity check', { head: stored.seq, chainEnd: end.seq });
    if (keys.key === undefined) return stored;
    const flaw = flawOfHead(stored, keys, end.seq === stored.seq ? sealedWith(last.at(-1)) : undefined, nowMs);
    // sealed, and carrying what it carried: as it is
    if (flaw === stored.flaw) return stored;
    if (flaw && !stored.flaw)
      logError('the ledger head is not sealed with SVC_LEDGER_KEY: reported by the integrity check', { head: stored.seq, found: flaw.found });
    return this.write(sealHead({ seq: stored.seq, hash: stored.hash, flaw }, keys.key));
  }

  /** Writes the head over the old one and fsyncs it; answers it. */
  async write(head: StoredHead): Promise<StoredHead> {
    if (!this.handle) {
      await (await open(this.file, 'a', 0o600)).close();
      this.handle = await open(this.file, 'r+');
    }
    const text = JSON.stringify(head).padEnd(HEAD_BYTES - 1, ' ') + '\n';
    await this.handle.write(text, 0, 'utf8');
    await this.handle.datasync();
    return head;
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }
}
