import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';

/**
 * The one durable whole-file write of svc's file adapters (sessions, runs,
 * scans, the embedded vector store, the ledger's rewrite): the content goes to
 * a temp file beside the final name (0600, exclusive create), is fsynced, is
 * renamed over the final name, and the directory is fsynced, so after a crash
 * the file is the old version or the new one, never a mix, and the rename
 * itself survives.
 */

/** Temp files: `.<final name>.<random>.tmp`, hidden and never mistaken for a data file. */
const TEMP_SUFFIX = '.tmp';
export const isTempName = (name: string): boolean => name.startsWith('.') && name.endsWith(TEMP_SUFFIX);

// Temp files this process is writing right now: a sweep must not remove them mid-write.
const inFlight = new Set<string>();
export const isInFlight = (file: string): boolean => inFlight.has(file);

export const isErrno = (e: unknown, ...codes: string[]): boolean => codes.includes((e as NodeJS.ErrnoException)?.code ?? '');

/** fsyncs a directory: a rename or removal in it is durable after. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** What a durable write puts in the file: text, buffers in order, or a writer given the open temp file. */
export type FileContent = string | readonly Buffer[] | ((handle: FileHandle) => Promise<void>);

async function writeContent(handle: FileHandle, content: FileContent): Promise<void> {
  if (typeof content === 'string') return handle.writeFile(content, 'utf8');
  if (typeof content === 'function') return content(handle);
  let position = 0;
  for (const chunk of content) {
    // a write may be partial; loop until every byte of the chunk is written
    for (let done = 0; done < chunk.length;) {
      const { bytesWritten } = await handle.write(chunk, done, chunk.length - done, position);
      done += bytesWritten;
      position += bytesWritten;
    }
  }
}

/** Temp file (0600, exclusive create), fsync, rename over `file`, fsync of the directory. */
export async function writeFileDurably(file: string, content: FileContent): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString('hex')}${TEMP_SUFFIX}`);
  inFlight.add(tmp);
  try {
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await writeContent(handle, content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  } finally {
    inFlight.delete(tmp);
  }
  await syncDirectory(path.dirname(file));
}

/** true when this call removed the file, false when it was already gone. */
export async function removeFile(file: string): Promise<boolean> {
  try {
    await unlink(file);
    return true;
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return false;
    throw e;
  }
}

/** Removes the file (absent is fine) and makes the removal durable. */
export async function removeFileDurably(file: string): Promise<void> {
  if (await removeFile(file)) await syncDirectory(path.dirname(file));
}
