import path from 'node:path';
import { DEFAULT_BRANCH, isValidBranch, normalizeSubPath, UnsafeSubPathError, type RepoLocation } from '../../domain/prompts/repo-override.js';
import { scrubUrl } from '../../domain/security/scrub-credentials.js';
import { projectRoot } from '../project-root.js';
import { ConfigError, int, str, type Env } from './env-parsers.js';

export interface PromptsConfig {
  /** SVC_USER_PROMPTS_REPO with _PATH and _BRANCH; undefined serves the built-in prompts. */
  configuredRepo?: RepoLocation;
  /** SVC_USER_PROMPTS_CACHE_TTL, seconds (default 86400). */
  cacheTtlSeconds: number;
  /** SVC_GIT_TOKEN. */
  gitToken?: string;
  /** SVC_ALLOWED_REPO_HOSTS (default github.com,www.github.com). */
  allowedRepoHosts: string[];
  /**
   * SVC_REPO_INTERNAL_HOSTS (default none): host names of internal git servers
   * that per-request repos may reach although they resolve to non-public addresses.
   */
  repoInternalHosts: string[];
  /** Folder of the built-in prompts (shipped in the source tree, read at runtime). */
  builtinDir: string;
}

export const DEFAULT_ALLOWED_REPO_HOSTS = ['github.com', 'www.github.com'];
const TEN_YEARS_SECONDS = 10 * 365 * 24 * 3600;

export function builtinPromptsDir(): string {
  return path.join(projectRoot(), 'infrastructure', 'prompts', 'builtin');
}

function configuredRepo(env: Env): RepoLocation | undefined {
  const raw = str(env, 'SVC_USER_PROMPTS_REPO');
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // not echoed: a malformed value may still hold a credential
    throw new ConfigError('SVC_USER_PROMPTS_REPO', 'must be an http(s) URL of a git repository (https://host/path)');
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') {
    throw new ConfigError('SVC_USER_PROMPTS_REPO', `must use http or https, got ${scheme}`);
  }
  let subPath: string;
  try {
    subPath = normalizeSubPath(str(env, 'SVC_USER_PROMPTS_PATH') ?? '');
  } catch (e) {
    if (!(e instanceof UnsafeSubPathError)) throw e;
    throw new ConfigError('SVC_USER_PROMPTS_PATH', `must be a folder inside the repository: ${e.message}`);
  }
  const branch = str(env, 'SVC_USER_PROMPTS_BRANCH') ?? DEFAULT_BRANCH;
  if (!isValidBranch(branch)) {
    throw new ConfigError('SVC_USER_PROMPTS_BRANCH', `may hold only letters, digits, _ . - and /, got "${branch}"`);
  }
  url.hash = '';
  return {
    url: url.search ? url.href : url.href.replace(/\/+$/, ''),
    source: scrubUrl(raw),
    scheme,
    host: url.hostname,
    subPath,
    branch,
  };
}

function allowedHosts(env: Env): string[] {
  const raw = str(env, 'SVC_ALLOWED_REPO_HOSTS');
  if (raw === undefined) return [...DEFAULT_ALLOWED_REPO_HOSTS];
  const hosts = raw
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const h of hosts) {
    if (!/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/.test(h)) {
      throw new ConfigError('SVC_ALLOWED_REPO_HOSTS', `must be a comma-separated list of host names (no scheme, port or path), got "${h}"`);
    }
  }
  return hosts;
}

const HOST_NAME = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

function internalHosts(env: Env): string[] {
  const raw = str(env, 'SVC_REPO_INTERNAL_HOSTS');
  if (raw === undefined) return [];
  const hosts = raw
    .split(',')
    .map((h) => h.trim().toLowerCase().replace(/\.$/, ''))
    .filter(Boolean);
  for (const h of hosts) {
    // an IP literal in `repo` is refused before any connection, so listing one here could never take effect
    if (!HOST_NAME.test(h) || h.length > 253 || /^[\d.]+$|\.\d+$/.test(h)) {
      throw new ConfigError('SVC_REPO_INTERNAL_HOSTS', `must be a comma-separated list of DNS host names (no scheme, port, path or IP address), got "${h}"`);
    }
  }
  return [...new Set(hosts)];
}

export function parsePromptsConfig(env: Env): PromptsConfig {
  return {
    configuredRepo: configuredRepo(env),
    cacheTtlSeconds: int(env, 'SVC_USER_PROMPTS_CACHE_TTL', 86400, 0, TEN_YEARS_SECONDS),
    gitToken: str(env, 'SVC_GIT_TOKEN'),
    allowedRepoHosts: allowedHosts(env),
    repoInternalHosts: internalHosts(env),
    builtinDir: builtinPromptsDir(),
  };
}
