import { ValidationError } from '../errors.js';
import { echo } from './display.js';
import { parseContentHash } from './content-hash.js';
import { sanitiseMode } from './file-mode.js';
import { normaliseUploadPath } from './file-path.js';
import { checkSourceIdentifier } from './source-identifier.js';
import { base64DecodedSize } from './strict-base64.js';
import { MAX_UPLOAD_DECODED_BYTES, MAX_UPLOAD_FILES } from './upload-limits.js';
import { isJsonObject } from '../json-object.js';

/** A manifest file that passed every check but is not decoded yet. */
export interface CheckedFile {
  /** Normalised path. */
  path: string;
  /** The path as sent, for messages. */
  sentPath: string;
  /** Sanitised mode. */
  mode: number;
  /** Base64 as sent: its length and padding are checked, its characters only when decoded. */
  content: string;
  /** Decoded size, bytes. */
  size: number;
}

/** A manifest that passed every check of SPEC.md "Limits"; nothing decoded yet. */
export interface CheckedManifest {
  /** Exactly as sent. */
  identifier: string;
  /** As sent, to echo back. */
  sentContentHash?: string;
  /** Lower-cased, to compare and cache. */
  contentHash?: string;
  /** In the order sent. */
  files: CheckedFile[];
  totalBytes: number;
}

const MANIFEST_FIELDS = new Set(['source', 'contentHash', 'files']);
const FILE_FIELDS = new Set(['path', 'content', 'mode']);
const FILES_SHAPE = 'a non-empty array of {path, content (base64), mode (octal, optional)}';

function rejectUnknownFields(obj: Record<string, unknown>, allowed: Set<string>, where: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) {
      throw new ValidationError(`Unknown field ${echo(key)} in ${where} (allowed: ${[...allowed].join(', ')})`);
    }
  }
}

function checkFiles(files: unknown): CheckedFile[] {
  if (files === undefined || files === null) throw new ValidationError(`Missing required field files: ${FILES_SHAPE}`);
  if (!Array.isArray(files)) throw new ValidationError(`Invalid files: must be ${FILES_SHAPE}`);
  if (files.length === 0) throw new ValidationError('Invalid files: must not be empty');
  if (files.length > MAX_UPLOAD_FILES) {
    throw new ValidationError(`Too many files: ${files.length} (at most ${MAX_UPLOAD_FILES} per manifest)`);
  }
  const seen = new Map<string, string>();
  const checked: CheckedFile[] = [];
  let total = 0;
  files.forEach((file: unknown, i) => {
    if (!isJsonObject(file)) throw new ValidationError(`Invalid files[${i}]: must be an object with path, content and optional mode`);
    rejectUnknownFields(file, FILE_FIELDS, `files[${i}]`);
    if (typeof file.path !== 'string') throw new ValidationError(`Invalid files[${i}].path: must be a string`);
    const path = normaliseUploadPath(file.path);
    const earlier = seen.get(path);
    if (earlier !== undefined) {
      throw new ValidationError(`Duplicate file path ${echo(file.path)}: same file as ${echo(earlier)} after normalisation`);
    }
    seen.set(path, file.path);
    if (typeof file.content !== 'string') {
      throw new ValidationError(`Invalid content of file ${echo(file.path)}: must be a base64 string`);
    }
    const size = base64DecodedSize(file.content, file.path);
    total += size;
    if (total > MAX_UPLOAD_DECODED_BYTES) {
      throw new ValidationError(
        `Decoded upload payload exceeds ${MAX_UPLOAD_DECODED_BYTES} bytes (256 KiB): reached ${total} bytes at file ${echo(file.path)}`,
      );
    }
    checked.push({ path, sentPath: file.path, mode: sanitiseMode(file.mode), content: file.content, size });
  });
  return checked;
}

/**
 * The upload checks of SPEC.md "Limits" that do not read file contents, in
 * one pass and with no I/O: the shape, the identifier, the hash form, the file
 * count, each path (then duplicates after normalisation), the base64 length
 * and padding, the decoded total (from the lengths, before anything is
 * decoded), and mode sanitising. The base64 characters themselves are checked
 * by decodeManifest, which every stored upload goes through.
 * Throws ValidationError naming the offending field or file.
 */
export function checkManifest(body: unknown): CheckedManifest {
  if (!isJsonObject(body)) throw new ValidationError(`Upload manifest must be a JSON object with source and files (${FILES_SHAPE})`);
  rejectUnknownFields(body, MANIFEST_FIELDS, 'upload manifest');
  const identifier = checkSourceIdentifier(body.source);
  const sent = body.contentHash ?? undefined;
  const contentHash = sent === undefined ? undefined : parseContentHash(sent);
  const files = checkFiles(body.files);
  const totalBytes = files.reduce((sum, f) => sum + f.size, 0);
  return { identifier, sentContentHash: sent as string | undefined, contentHash, files, totalBytes };
}
