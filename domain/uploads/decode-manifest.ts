import { ValidationError } from '../errors.js';
import { computeContentHash } from './content-hash.js';
import type { CheckedFile, CheckedManifest } from './check-manifest.js';
import type { IngestedFile, IngestedSource } from './ingested-source.js';
import { decodeStrictBase64 } from './strict-base64.js';
import { displaySource, sourceKey } from './source-identifier.js';

/** Sorted by the UTF-8 bytes of the path (JS string order differs beyond the BMP); one key per file. */
function sortByUtf8Path(files: readonly CheckedFile[]): CheckedFile[] {
  return files
    .map((f) => ({ key: Buffer.from(f.path, 'utf8'), f }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map(({ f }) => f);
}

/**
 * Decodes a checked manifest into the source to cache, refusing any content
 * that is not canonical base64, and, when the client sent a contentHash,
 * verifies it against the decoded files. All contents are
 * decoded into one exactly-sized buffer: the cache's byte accounting is then
 * the memory actually held (small pooled buffers would pin shared 8 KiB slabs).
 * Files come out in ascending UTF-8 path order (the content-hash order).
 * Throws ValidationError on bad base64 or a hash mismatch; nothing is stored by this function.
 */
export function decodeManifest(manifest: CheckedManifest): IngestedSource {
  const block = Buffer.allocUnsafeSlow(manifest.totalBytes);
  const files: IngestedFile[] = [];
  let offset = 0;
  for (const f of sortByUtf8Path(manifest.files)) {
    decodeStrictBase64(f.content, f.size, block, offset, f.sentPath);
    files.push({ path: f.path, mode: f.mode, content: block.subarray(offset, offset + f.size) });
    offset += f.size;
  }
  if (manifest.contentHash !== undefined) {
    const computed = computeContentHash(files);
    if (computed !== manifest.contentHash) {
      throw new ValidationError(
        `contentHash mismatch: sent ${manifest.sentContentHash}, computed ${computed} ` +
          '(SHA-256 over each file in path order as path NUL mode NUL size NUL bytes; see the README)',
      );
    }
  }
  return {
    key: sourceKey(manifest.identifier),
    source: displaySource(manifest.identifier),
    contentHash: manifest.contentHash,
    files,
    totalBytes: manifest.totalBytes,
  };
}
