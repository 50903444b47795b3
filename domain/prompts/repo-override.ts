import { ValidationError } from '../errors.js';
import { scrubUrl } from '../security/scrub-credentials.js';
import { nonPublicKindOf } from './ip-literal.js';
import { ambiguousHostReason } from './repo-url-spelling.js';

/** What a request may say about where prompts come from (query for GET/render, body for refresh). */
export interface RepoOverrideInput {
  repo?: string;
  path?: string;
  branch?: string;
}

/** A repository location that passed validation. */
export interface RepoLocation {
  /** WHATWG-normalised URL, userinfo kept: this exact URL is what gets fetched. */
  url: string;
  /** The supplied URL with credentials scrubbed: the `source` field. */
  source: string;
  scheme: 'http' | 'https';
  /** `URL.hostname`, lower-case; IPv6 in brackets. */
  host: string;
  /** Normalised relative folder inside the repo; '' is the root. */
  subPath: string;
  branch: string;
}

export const DEFAULT_BRANCH = 'main';
const BRANCH = /^[A-Za-z0-9_./-]{1,255}$/;

/** Why a relative folder is refused; the words after `Invalid override subPath: `. */
export class UnsafeSubPathError extends Error {}

/**
 * Normalises a relative folder (`a/./b/` -> `a/b`, `\` counts as `/`); '' is the
 * root. Throws UnsafeSubPathError for a null byte, an absolute path or one that
 * climbs above the root.
 */
export function normalizeSubPath(raw: string): string {
  if (raw.includes('\0')) throw new UnsafeSubPathError('contains null byte');
  if (/^[\\/]/.test(raw) || /^[A-Za-z]:/.test(raw)) throw new UnsafeSubPathError('relative path cannot be absolute');
  const kept: string[] = [];
  for (const segment of raw.split(/[\\/]+/)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (kept.length === 0) throw new UnsafeSubPathError('relative path cannot escape target directory');
      kept.pop();
    } else {
      kept.push(segment);
    }
  }
  return kept.join('/');
}

export function isValidBranch(branch: string): boolean {
  return BRANCH.test(branch);
}

function validatePath(path: string | undefined): string {
  if (path === undefined) return '';
  try {
    return normalizeSubPath(path);
  } catch (e) {
    if (e instanceof UnsafeSubPathError) throw new ValidationError(`Invalid override subPath: ${e.message}`);
    throw e;
  }
}

function validateBranch(branch: string | undefined): string {
  if (branch === undefined || branch === '') return DEFAULT_BRANCH;
  if (!isValidBranch(branch)) throw new ValidationError(`Invalid override branch name: ${branch}`);
  return branch;
}

/** A trailing-dot hostname ("127.0.0.1..") is not parsed as an IP by URL; peel the dots and look again. */
function hostKind(hostname: string): ReturnType<typeof nonPublicKindOf> {
  const direct = nonPublicKindOf(hostname);
  if (direct || !hostname.endsWith('.')) return direct;
  try {
    return nonPublicKindOf(new URL(`http://${hostname.replace(/\.+$/, '')}/`).hostname);
  } catch {
    return undefined;
  }
}

function validateRepo(repo: string): Omit<RepoLocation, 'subPath' | 'branch'> {
  const shown = scrubUrl(repo);
  let url: URL;
  try {
    url = new URL(repo);
  } catch {
    // not echoed: an scp-like `user:token@host:path` has no URL shape for scrubbing to find
    throw new ValidationError('Invalid override repoUrl: not an absolute http(s) URL (expected http(s)://host/path)');
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') {
    throw new ValidationError(`Invalid override repoUrl scheme: ${scheme} (only http and https are allowed) for ${shown}`);
  }
  const kind = hostKind(url.hostname);
  if (kind) {
    throw new ValidationError(
      `Invalid override repoUrl host: ${url.hostname} is a ${kind} address, not a public destination this server may fetch prompts from, for ${shown}`,
    );
  }
  // after the IP rule, so every spelling of a non-public address keeps SPEC's message
  const ambiguity = ambiguousHostReason(repo, url);
  if (ambiguity) {
    // not echoed: a URL parsers disagree on is also one scrubbing may read wrongly
    throw new ValidationError(
      `Invalid override repoUrl: its host would read differently to other URL parsers (git, curl): ${ambiguity}. Write it as http(s)://host/path with a plain ASCII host name`,
    );
  }
  url.hash = '';
  const fetchUrl = url.search ? url.href : url.href.replace(/\/+$/, '');
  return { url: fetchUrl, source: shown, scheme, host: url.hostname };
}

/**
 * Validates a per-request override before any I/O. Returns undefined when no
 * `repo` is given (the configured repo or the built-ins apply); `path` and
 * `branch` are still checked then, though only a `repo` gives them effect.
 * Throws ValidationError with SPEC.md's message shapes; URLs in messages are scrubbed.
 */
export function validateRepoOverride(input: RepoOverrideInput): RepoLocation | undefined {
  const repo = input.repo === undefined || input.repo.trim() === '' ? undefined : input.repo;
  const location = repo === undefined ? undefined : validateRepo(repo);
  const subPath = validatePath(input.path);
  const branch = validateBranch(input.branch);
  return location && { ...location, subPath, branch };
}
