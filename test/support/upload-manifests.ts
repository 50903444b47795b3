import { createHash } from 'node:crypto';

/** A file as a client holds it before upload. */
export interface ClientFile {
  path: string;
  bytes: Buffer;
  /** Sent as is; undefined leaves `mode` out of the manifest. */
  mode?: string;
}

export interface WireFile {
  path: string;
  content: string;
  mode?: string;
}

export interface WireManifest {
  source: string;
  contentHash?: string;
  files: WireFile[];
}

/** Deterministic filler bytes (not all one value, so base64 varies across the text). */
export function bytesOf(size: number, seed = 1): Buffer {
  const b = Buffer.allocUnsafe(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

/**
 * The README's contentHash recipe, written again from the README text (not by
 * calling the server's code), as a client would: files sorted by the UTF-8
 * bytes of their path; each contributes `path NUL mode NUL size NUL bytes`,
 * mode being the sanitised mode as four octal digits.
 */
export function clientContentHash(files: readonly { path: string; bytes: Buffer; mode: number }[]): string {
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const h = createHash('sha256');
  for (const f of sorted) {
    h.update(
      Buffer.concat([
        Buffer.from(f.path, 'utf8'),
        Buffer.from([0]),
        Buffer.from(f.mode.toString(8).padStart(4, '0')),
        Buffer.from([0]),
        Buffer.from(String(f.bytes.length)),
        Buffer.from([0]),
        f.bytes,
      ]),
    );
  }
  return `sha256:${h.digest('hex')}`;
}

/** The manifest a client sends for `files`; `hash` true adds a correct contentHash (modes must then be octal strings or absent). */
export function manifestOf(source: string, files: readonly ClientFile[], hash = false): WireManifest {
  const wire: WireManifest = {
    source,
    files: files.map((f) => ({ path: f.path, content: f.bytes.toString('base64'), ...(f.mode !== undefined && { mode: f.mode }) })),
  };
  if (hash) {
    wire.contentHash = clientContentHash(
      files.map((f) => ({ path: f.path, bytes: f.bytes, mode: f.mode === undefined ? 0o644 : parseInt(f.mode, 8) & 0o777 })),
    );
  }
  return wire;
}

/** A small, valid skill folder. */
export function skillFiles(label = 'demo'): ClientFile[] {
  return [
    {
      path: `skills/${label}/SKILL.md`,
      bytes: Buffer.from(`---\nname: ${label}\ndescription: Demo skill ${label}\n---\nHello {{who}}\n`),
      mode: '0644',
    },
    { path: `skills/${label}/run.sh`, bytes: Buffer.from('#!/bin/sh\necho hi\n'), mode: '0755' },
  ];
}

/**
 * `count` files whose decoded sizes sum to exactly `totalBytes`; every
 * size is a multiple of 3 except possibly the last, so base64 has no padding
 * to spare and the wire size is about 4/3 of the total.
 */
export function filesTotalling(totalBytes: number, count: number, prefix = 'f'): ClientFile[] {
  const each = Math.floor(totalBytes / count / 3) * 3;
  return Array.from({ length: count }, (_, i) => {
    const size = i === count - 1 ? totalBytes - each * (count - 1) : each;
    return { path: `${prefix}/${String(i).padStart(3, '0')}.bin`, bytes: bytesOf(size, i + 1) };
  });
}
