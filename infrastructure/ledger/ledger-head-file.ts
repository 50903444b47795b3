import { open, type FileHandle } from 'node:fs/promises';
import type { ChainAnchor } from '../../domain/ledger/hash-chain.js';
import { isErrno } from '../fs/durable-file.js';

/** The head of the chain beside the ledger: `<dir>/head.json`. */
export const HEAD_FILE = 'head.json';
/** The head is written in place as this many bytes (JSON padded with spaces): one write within one disk block, never a shorter file. */
const HEAD_BYTES = 128;

/**
 * The seq and hash of the last entry appended, kept in its own file so an
 * integrity walk can tell a chain cut at its newest end from a whole one.
 * Written in place after each append's line is durable, then fsynced.
 */
export class LedgerHeadFile {
  private handle: FileHandle | undefined;

  constructor(private readonly file: string) {}

  /** The head as stored; `missing` when there is no file, `unreadable` when its content is not a head. */
  async read(): Promise<ChainAnchor | 'missing' | 'unreadable'> {
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
      const v = JSON.parse(text) as Partial<ChainAnchor>;
      return Number.isSafeInteger(v.seq) && (v.seq as number) >= 0 && typeof v.hash === 'string' && /^[0-9a-f]{64}$/.test(v.hash)
        ? { seq: v.seq as number, hash: v.hash }
        : 'unreadable';
    } catch {
      return 'unreadable';
    }
  }

  /**
   * The head the chain must end at, when the ledger is opened: the stored
   * one. One entry past it that follows it (`lastPrevHash`) is a crash
   * between an append's line and its head write: the head moves there. A
   * chain that ends short of it keeps the stored head, so the next entry
   * links to it and the gap stays visible. No head file (a ledger written
   * before there was one, or removed) or an unreadable one: the chain's
   * end, logged as an error when the chain has entries.
   */
  async reconcile(
    chainEnd: ChainAnchor,
    lastPrevHash: string | undefined,
    anchor: ChainAnchor,
    logError: (message: string, fields: Record<string, unknown>) => void,
  ): Promise<ChainAnchor> {
    const stored = await this.read();
    if (stored === 'missing' || stored === 'unreadable') {
      if (chainEnd.seq > anchor.seq || stored === 'unreadable')
        logError(`the ledger's head file is ${stored}: the head is taken from the chain, so newest entries removed before now cannot show`, {
          seq: chainEnd.seq,
        });
      if (chainEnd.seq > 0) await this.write(chainEnd);
      return chainEnd;
    }
    if (chainEnd.seq === stored.seq + 1 && lastPrevHash === stored.hash) {
      await this.write(chainEnd);
      return chainEnd;
    }
    if (chainEnd.seq !== stored.seq || chainEnd.hash !== stored.hash)
      logError('the ledger does not end at the head svc wrote: reported by the integrity check', { head: stored.seq, chainEnd: chainEnd.seq });
    return stored;
  }

  /** Writes the head over the old one and fsyncs it. */
  async write(head: ChainAnchor): Promise<void> {
    if (!this.handle) {
      await (await open(this.file, 'a', 0o600)).close();
      this.handle = await open(this.file, 'r+');
    }
    const text = JSON.stringify({ seq: head.seq, hash: head.hash }).padEnd(HEAD_BYTES - 1, ' ') + '\n';
    await this.handle.write(text, 0, 'utf8');
    await this.handle.datasync();
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }
}
