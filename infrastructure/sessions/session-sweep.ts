import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { Logger } from '../../domain/ports/logger.js';
import { SESSION_KINDS, type SessionKind } from '../../domain/sessions/session.js';
import { isSessionId } from '../../domain/sessions/session-id.js';
import { isErrno, isInFlight, isTempName, removeFile } from '../fs/durable-file.js';
import { readHead } from './session-files.js';
import { expiryFromHead, HEAD_BYTES } from './session-record.js';

/** Files examined per kind in one sweep: a run's work stays bounded however many sessions there are. */
export const SWEEP_BATCH = 200;
/** A temp file older than this (by the filesystem's clock) was left by a crash, not by a write in flight. */
const STRAY_TEMP_AGE_MS = 60_000;

export interface SweepTarget {
  dir: string;
  ttlMs: number;
  now: () => number;
  logger?: Logger;
  /** Where each kind's next sweep resumes, so a large directory is covered over several runs. */
  cursors: Map<SessionKind, string>;
  /** Under the id's lock: removes the file unless it holds a live session; true when removed. */
  removeIfGone: (kind: SessionKind, id: string) => Promise<boolean>;
}

/** Removes expired and corrupt session files and stray temp files; answers how many went. Never rejects. */
export async function sweepSessions(target: SweepTarget): Promise<number> {
  // read once, synchronously: the sweep judges expiry as of the moment it was started
  const now = target.now();
  let removed = 0;
  for (const kind of Object.keys(SESSION_KINDS) as SessionKind[]) {
    try {
      removed += await sweepKind(target, kind, now);
    } catch (e) {
      target.logger?.warn('session sweep failed', { kind, error: (e as Error).message });
    }
  }
  if (removed > 0) target.logger?.debug('session sweep removed files', { removed });
  return removed;
}

async function sweepKind(target: SweepTarget, kind: SessionKind, now: number): Promise<number> {
  const dir = path.join(target.dir, kind);
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return 0;
    throw e;
  }
  // resume after the last name examined (names come and go, so not at an index); wrap at the end
  const after = target.cursors.get(kind) ?? '';
  const start = Math.max(
    0,
    names.findIndex((n) => n > after),
  );
  const batch = names.slice(start, start + SWEEP_BATCH);
  target.cursors.set(kind, start + batch.length < names.length ? batch[batch.length - 1] : '');
  let removed = 0;
  for (const name of batch) {
    const file = path.join(dir, name);
    if (isTempName(name)) {
      if (!isInFlight(file) && (await olderThan(file, STRAY_TEMP_AGE_MS)) && (await removeFile(file))) removed++;
      continue;
    }
    const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    // anything else in the directory is not ours to judge
    if (!isSessionId(id, kind)) continue;
    const head = await readHead(file, HEAD_BYTES);
    if (head === undefined) continue;
    const expiresAt = expiryFromHead(head);
    // a file whose head is unreadable is corrupt: removed once it is older than any live session could be
    const gone = expiresAt === undefined ? await olderThan(file, target.ttlMs) : now > expiresAt;
    if (gone && (await target.removeIfGone(kind, id))) removed++;
  }
  return removed;
}

/** By the file's modification time, which the filesystem sets from the real clock, not the injected one. */
async function olderThan(file: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(file)).mtimeMs > ms;
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return false;
    throw e;
  }
}
