import { open } from 'node:fs/promises';
import { isErrno } from '../fs/durable-file.js';

/**
 * Bounded reads of the session store's files. They are written whole by
 * `writeFileDurably` (infrastructure/fs/durable-file.ts), so a reader sees the
 * old or the new version, never a mix.
 */

/** A file that is there but is not a session record we can use. */
export class CorruptSessionFileError extends Error {}

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
