import type { IngestedSourceStore } from '../domain/ports/ingested-source-store.js';
import { checkManifest } from '../domain/uploads/check-manifest.js';
import { decodeManifest } from '../domain/uploads/decode-manifest.js';
import { displaySource, sourceKey } from '../domain/uploads/source-identifier.js';

export interface IngestSourceResult {
  /** The identifier, credentials scrubbed. */
  source: string;
  /** Echoed exactly as sent; absent when none was sent. */
  contentHash?: string;
  fileCount: number;
  status: 'ingested' | 'unchanged';
}

/**
 * POST /api/v1/prompts/sources: checks a manifest, then either answers
 * `unchanged` (same identifier and same contentHash already cached: nothing is
 * decoded, hashed or rewritten) or decodes, verifies and caches it whole.
 * A manifest that fails any check throws ValidationError and stores nothing.
 */
export class IngestSource {
  constructor(private readonly store: IngestedSourceStore) {}

  async execute(manifest: unknown): Promise<IngestSourceResult> {
    const checked = checkManifest(manifest);
    const answer = {
      source: displaySource(checked.identifier),
      ...(checked.sentContentHash !== undefined && { contentHash: checked.sentContentHash }),
      fileCount: checked.files.length,
    };
    if (checked.contentHash !== undefined) {
      // The cached hash was verified against the cached bytes when it was stored,
      // so an equal hash means equal content: the fast path may skip decoding.
      const cached = await this.store.get(sourceKey(checked.identifier));
      if (cached?.contentHash === checked.contentHash) return { ...answer, status: 'unchanged' };
    }
    await this.store.put(decodeManifest(checked));
    return { ...answer, status: 'ingested' };
  }
}
