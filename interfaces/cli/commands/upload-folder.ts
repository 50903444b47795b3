import type { Command } from 'commander';
import { ValidationError } from '../../../domain/errors.js';
import { checkManifest } from '../../../domain/uploads/check-manifest.js';
import { computeContentHash } from '../../../domain/uploads/content-hash.js';
import { decodeManifest } from '../../../domain/uploads/decode-manifest.js';
import { checkSourceIdentifier } from '../../../domain/uploads/source-identifier.js';
import { MAX_UPLOAD_DECODED_BYTES, MAX_UPLOAD_FILES, MAX_UPLOAD_RAW_BYTES } from '../../../domain/uploads/upload-limits.js';
import { UsageError } from '../cli-errors.js';
import type { CommandContext } from '../command-context.js';
import { printJson, writeErr, writeOut } from '../output.js';
import { progressBar, PROGRESS_MIN_BYTES, PROGRESS_MIN_FILES, silentProgress } from '../progress.js';
import { listSkillFolder, readSkillFiles } from '../skill-folder.js';

interface UploadResult {
  source: string;
  contentHash?: string;
  fileCount: number;
  status: 'ingested' | 'unchanged';
}

/** The server's own checks (domain/uploads), run here so a refused folder is never sent. */
function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof ValidationError) throw new UsageError(`${err.message}; nothing was sent`, err.details);
    throw err;
  }
}

/** `svc prompts upload <dir>`: check the folder as the server would, then send it (or, with --dry-run, only print its contentHash). */
export async function uploadFolder(context: CommandContext, dir: string, opts: { source: string; dryRun?: boolean }, cmd: Command): Promise<void> {
  const { client, output } = context(cmd);
  const source = asUsage(() => checkSourceIdentifier(opts.source));
  const listing = await listSkillFolder(dir, { maxFiles: MAX_UPLOAD_FILES, maxBytes: MAX_UPLOAD_DECODED_BYTES });
  for (const s of listing.skipped) writeErr(`skipped ${s.path}: ${s.reason}`);
  const large = listing.files.length >= PROGRESS_MIN_FILES || listing.totalBytes >= PROGRESS_MIN_BYTES;
  const progress = large ? progressBar('reading', listing.files.length) : silentProgress;
  const files = await readSkillFiles(listing, (done, bytes) => progress.update(done, bytes));

  const checked = asUsage(() => checkManifest({ source, files }));
  const contentHash = computeContentHash(asUsage(() => decodeManifest(checked)).files);
  const body = JSON.stringify({ source, contentHash, files });
  const bodyBytes = Buffer.byteLength(body);
  if (bodyBytes > MAX_UPLOAD_RAW_BYTES) {
    throw new UsageError(`Upload body would be ${bodyBytes} bytes, over the server's limit of ${MAX_UPLOAD_RAW_BYTES}; nothing was sent`);
  }
  if (opts.dryRun) {
    progress.finish(`checked ${files.length} files, ${listing.totalBytes} bytes`);
    const summary = { source, contentHash, fileCount: files.length, bytes: listing.totalBytes, sent: false };
    return output === 'json' ? printJson(summary) : writeOut(`${source}: ${files.length} files, ${listing.totalBytes} bytes, ${contentHash} (not sent)`);
  }
  if (large) progress.finish(`uploading ${files.length} files (${(bodyBytes / 1024).toFixed(1)} KiB)`);
  const result = await client.postJsonText<UploadResult>('/api/v1/prompts/sources', body);
  if (output === 'json') return printJson(result);
  writeOut(`${result.status} ${result.source}: ${result.fileCount} files, ${result.contentHash ?? contentHash}`);
}
