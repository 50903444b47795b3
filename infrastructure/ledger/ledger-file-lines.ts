import type { FileHandle } from 'node:fs/promises';

export interface FileLine {
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Bytes of the line, without its newline. */
  length: number;
  text: string;
  /** false for a last line with no newline after it: an append cut short. */
  terminated: boolean;
}

const CHUNK = 1024 * 1024;

/**
 * The file's lines with their byte offsets, read a chunk at a time (never the
 * whole file at once), up to byte `end` (the file's size when a walk began). A line longer than `maxLineBytes` comes back with its
 * text cut to that many bytes (it cannot be an entry, and is reported as such).
 */
export async function* fileLines(handle: FileHandle, maxLineBytes: number, end = Infinity): AsyncGenerator<FileLine> {
  let pos = 0;
  let lineStart = 0;
  let parts: Buffer[] = [];
  let kept = 0;
  const buf = Buffer.allocUnsafe(CHUNK);
  for (;;) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(CHUNK, end - pos), pos);
    if (bytesRead === 0) break;
    let from = 0;
    for (let nl = buf.indexOf(10, 0); nl !== -1 && nl < bytesRead; nl = buf.indexOf(10, from)) {
      keep(buf.subarray(from, nl));
      yield { offset: lineStart, length: pos + nl - lineStart, text: Buffer.concat(parts).toString('utf8'), terminated: true };
      parts = [];
      kept = 0;
      from = nl + 1;
      lineStart = pos + from;
    }
    keep(buf.subarray(from, bytesRead));
    pos += bytesRead;
  }
  if (pos > lineStart) yield { offset: lineStart, length: pos - lineStart, text: Buffer.concat(parts).toString('utf8'), terminated: false };

  function keep(bytes: Buffer): void {
    const room = maxLineBytes - kept;
    if (room <= 0) return;
    const slice = bytes.subarray(0, room);
    parts.push(Buffer.from(slice));
    kept += slice.length;
  }
}

export /** Bytes [from, to) of one file appended to another, a chunk at a time. */
async function copyBytes(src: FileHandle, from: number, to: number, dst: FileHandle): Promise<void> {
  const buf = Buffer.allocUnsafe(1024 * 1024);
  for (let pos = from; pos < to;) {
    const { bytesRead } = await src.read(buf, 0, Math.min(buf.length, to - pos), pos);
    if (bytesRead === 0) break;
    await dst.write(buf, 0, bytesRead);
    pos += bytesRead;
  }
}
