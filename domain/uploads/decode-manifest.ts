import { ValidationError } from '../errors.js';
import { computeContentHash } from './content-hash.js';
import type { CheckedManifest } from './check-manifest.js';
import type { IngestedFile, IngestedSource } from './ingested-source.js';
import { displaySource, sourceKey } from './source-identifier.js';

/**
 * Decodes a checked manifest into the source to cache and, when the client
 * sent a contentHash, verifies it against the decoded files. All contents are
 * decoded into one exactly-sized buffer: the cache's byte accounting is then
 * the memory actually held (small pooled buffers would pin shared 8 KiB slabs).
 * Throws ValidationError on a hash mismatch; nothing is stored by this function.
 */
export function decodeManifest(manifest: CheckedManifest): IngestedSource {
  const block = Buffer.allocUnsafeSlow(manifest.totalBytes);
  const files: IngestedFile[] = [];
  let offset = 0;
  for (const f of manifest.files) {
    const written = f.size === 0 ? 0 : block.write(f.content, offset, f.size, 'base64');
    if (written !== f.size) throw new Error(`base64 decode of ${f.path} gave ${written} bytes, expected ${f.size}`);
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
