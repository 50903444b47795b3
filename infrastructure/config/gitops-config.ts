import { ConfigError, httpUrl, str, type Env } from './env-parsers.js';

export interface GitopsConfig {
  /** SVC_GIT_AUTHOR, `Name <email>` (default `svc <svc@localhost>`): author and committer of delivery commits. */
  author: { name: string; email: string };
  /** SVC_GITOPS_PROVIDER: github or gitlab; unset: chosen from the repository's host name. */
  provider?: 'github' | 'gitlab';
  /** SVC_GITHUB_API_URL (GitHub Enterprise, e.g. https://ghe.example.com/api/v3); default https://api.github.com. */
  githubApiUrl?: string;
  /** SVC_GITLAB_API_URL (e.g. https://gitlab.example.com/api/v4); default https://gitlab.com/api/v4. */
  gitlabApiUrl?: string;
}

function author(env: Env): GitopsConfig['author'] {
  const raw = str(env, 'SVC_GIT_AUTHOR');
  if (raw === undefined) return { name: 'svc', email: 'svc@localhost' };
  const m = /^([^<>\n]+?)\s*<([^<>\s@]+@[^<>\s@]+)>$/.exec(raw.trim());
  if (!m) throw new ConfigError('SVC_GIT_AUTHOR', `must be "Name <email>", got "${raw}"`);
  return { name: m[1], email: m[2] };
}

function provider(env: Env): GitopsConfig['provider'] {
  const raw = str(env, 'SVC_GITOPS_PROVIDER')?.toLowerCase();
  if (raw === undefined) return undefined;
  if (raw !== 'github' && raw !== 'gitlab') throw new ConfigError('SVC_GITOPS_PROVIDER', `must be github or gitlab, got "${raw}"`);
  return raw;
}

export function parseGitopsConfig(env: Env): GitopsConfig {
  return { author: author(env), provider: provider(env), githubApiUrl: httpUrl(env, 'SVC_GITHUB_API_URL'), gitlabApiUrl: httpUrl(env, 'SVC_GITLAB_API_URL') };
}
