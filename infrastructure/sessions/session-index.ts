import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import type { PagePosition } from '../../domain/paging/newest-first-cursor.js';
import { SESSION_KINDS, type SessionKind } from '../../domain/sessions/session.js';
import { isSessionId } from '../../domain/sessions/session-id.js';
import { isErrno } from '../fs/durable-file.js';
import { readHead } from './session-files.js';
import { creationFromHead, HEAD_BYTES } from './session-record.js';

/**
 * Where each session file sits in newest-first order, so a listing reads only
 * the files of its page rather than every file. Built from the directory on
 * the first listing (the creation instant is in each file's first bytes),
 * then kept by the store's creates and removals. One entry per session file,
 * so it is as bounded as the directory; an entry left by a file removed
 * behind the store's back reads as absent and is dropped by the listing.
 */
export class SessionIndex {
  private entries: Map<string, PagePosition> | undefined;
  private building: Promise<void> | undefined;

  constructor(private readonly dir: string) {}

  /** Every indexed position (unsorted). */
  async positions(): Promise<PagePosition[]> {
    if (!this.entries) {
      // entries exist from the start of the build, so a create meanwhile is kept
      this.entries = new Map();
      this.building = this.build(this.entries).catch((e) => {
        this.entries = undefined;
        throw e;
      });
    }
    await this.building;
    return [...(this.entries?.values() ?? [])];
  }

  add(id: string, createdAt: number): void {
    this.entries?.set(id, { createdAt: new Date(createdAt).toISOString(), id });
  }

  remove(id: string): void {
    this.entries?.delete(id);
  }

  private async build(into: Map<string, PagePosition>): Promise<void> {
    for (const kind of Object.keys(SESSION_KINDS) as SessionKind[]) {
      let names: string[];
      try {
        names = await readdir(path.join(this.dir, kind));
      } catch (e) {
        if (isErrno(e, 'ENOENT')) continue;
        throw e;
      }
      for (const name of names) {
        const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
        if (!isSessionId(id, kind) || into.has(id)) continue;
        const head = await readHead(path.join(this.dir, kind, name), HEAD_BYTES);
        const createdAt = head === undefined ? undefined : creationFromHead(head);
        // a corrupt head is the sweep's business; it cannot be placed in the order
        if (createdAt !== undefined && !into.has(id)) into.set(id, { createdAt: new Date(createdAt).toISOString(), id });
      }
    }
  }
}
