import { createHash } from 'node:crypto';
import { ValidationError } from '../errors.js';
import { scrubUrl } from '../security/scrub-credentials.js';
import { echo } from './display.js';
import { MAX_SOURCE_IDENTIFIER_LENGTH } from './upload-limits.js';

const URL_SCHEMES = new Set(['http:', 'https:', 'ssh:', 'git:', 'git+ssh:', 'ssh+git:']);
// scp-like git address: user@host:path (the form `git clone git@host:org/repo` takes)
const SCP_LIKE = /^[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:(?!\/\/).+$/;
// eslint-disable-next-line no-control-regex -- control characters are what this pattern looks for
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;
const EXPECTED = 'expected a git URL (https://, http://, ssh://, git:// or user@host:path) or local:<label>';

function invalid(identifier: string, reason: string): ValidationError {
  return new ValidationError(`Invalid source ${echo(scrubUrl(identifier))}: ${reason}`);
}

function isGitUrl(identifier: string): boolean {
  if (SCP_LIKE.test(identifier)) return true;
  let url: URL;
  try {
    url = new URL(identifier);
  } catch {
    return false;
  }
  return URL_SCHEMES.has(url.protocol) && url.hostname !== '';
}

/**
 * Checks an upload's `source` identifier: a git URL or `local:<label>`, no
 * whitespace or control character, bounded length. Returns it unchanged: the
 * identifier is kept exactly as sent. Throws ValidationError (credentials scrubbed).
 */
export function checkSourceIdentifier(value: unknown): string {
  if (value === undefined || value === null) {
    throw new ValidationError(`Missing required field source: ${EXPECTED}`);
  }
  if (typeof value !== 'string') throw new ValidationError(`Invalid source: must be a string, ${EXPECTED}`);
  if (value.length === 0) throw new ValidationError(`Invalid source: empty, ${EXPECTED}`);
  if (value.length > MAX_SOURCE_IDENTIFIER_LENGTH) {
    throw invalid(value, `longer than ${MAX_SOURCE_IDENTIFIER_LENGTH} characters`);
  }
  if (WHITESPACE_OR_CONTROL.test(value)) throw invalid(value, 'contains whitespace or a control character');
  if (value.startsWith('local:')) {
    if (value.length === 'local:'.length) throw invalid(value, 'local: needs a label, as in local:<user>-<label>');
    return value;
  }
  if (!isGitUrl(value)) throw invalid(value, EXPECTED);
  return value;
}

/**
 * The cache key of an identifier: its SHA-256, so distinct identifiers stay
 * distinct (exactly as sent) while a credential inside a URL never sits in
 * the cache as a key.
 */
export function sourceKey(identifier: string): string {
  return createHash('sha256').update(identifier, 'utf8').digest('hex');
}

/** The identifier as shown in answers and messages: credentials scrubbed. */
export function displaySource(identifier: string): string {
  return scrubUrl(identifier);
}
