import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import * as path from 'node:path';

/**
 * File primitives of the session store. A session file is written whole to a
 * temp file beside it and renamed over it, so a reader sees the old or the new
 * version, never a mix.
 */

/** Temp files: `.<final name>.<random>.tmp`, hidden and never mistaken for a session file. */
const TEMP_SUFFIX = '.tmp';
export const isTempName = (name: string): boolean => name.startsWith('.') && name.endsWith(TEMP_SUFFIX);

// Temp files this process is writing right now: the sweep must not remove them mid-write.
const inFlight = new Set<string>();
export const isInFlight = (file: string): boolean => inFlight.has(file);

/** A file that is there but is not a session record we can use. */
export class CorruptSessionFileError extends Error {}

export const isErrno = (e: unknown, ...codes: string[]): boolean => codes.includes((e as NodeJS.ErrnoException)?.code ?? '');

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Temp file (0600, exclusive create), fsync, rename over `file`, fsync the directory. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString('hex')}${TEMP_SUFFIX}`);
  inFlight.add(tmp);
  try {
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
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

/** The file opened for reading, or undefined when it does not exist. */
async function openIfExists(file: string) {
  try {
    return await open(file, 'r');
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
}

/** The whole file as text; undefined when absent; CorruptSessionFileError when larger than `maxBytes`. */
export async function readFileBounded(file: string, maxBytes: number): Promise<string | undefined> {
  const handle = await openIfExists(file);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw new CorruptSessionFileError(`file of ${size} bytes exceeds ${maxBytes}`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** The first `bytes` bytes of the file as text; undefined when absent. */
export async function readHead(file: string, bytes: number): Promise<string | undefined> {
  const handle = await openIfExists(file);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
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
