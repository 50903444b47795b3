import { ValidationError } from '../errors.js';
import type { RepoLocation } from '../prompts/repo-override.js';
import type { GitProvider } from '../ports/pull-request-host.js';

export interface PullRequestSettings {
  /** SVC_GITOPS_PROVIDER; undefined: chosen from the repository's host name. */
  provider?: GitProvider;
  /** SVC_GITHUB_API_URL (GitHub Enterprise); default https://api.github.com. */
  githubApiUrl?: string;
  /** SVC_GITLAB_API_URL; default https://gitlab.com/api/v4. */
  gitlabApiUrl?: string;
}

export interface PullRequestTarget {
  provider: GitProvider;
  apiUrl: string;
  project: string;
}

const GITHUB_API = 'https://api.github.com';
const GITLAB_API = 'https://gitlab.com/api/v4';
const hostOf = (url: string) => new URL(url).hostname.toLowerCase();

function providerFor(host: string, s: PullRequestSettings): GitProvider | undefined {
  if (s.provider) return s.provider;
  if (host === 'github.com' || host === 'www.github.com' || (s.githubApiUrl && hostOf(s.githubApiUrl) === host)) return 'github';
  if (host === 'gitlab.com' || host.startsWith('gitlab.') || (s.gitlabApiUrl && hostOf(s.gitlabApiUrl) === host)) return 'gitlab';
  return undefined;
}

/**
 * Which API opens the pull request for a repository, decided before any I/O.
 * The push token goes to the API too, so the API must be the repository's own
 * host (api.github.com for github.com): a token is never carried to another host.
 */
export function pullRequestTarget(location: RepoLocation, s: PullRequestSettings): PullRequestTarget {
  const host = location.host.toLowerCase().replace(/\.+$/, '');
  const provider = providerFor(host, s);
  if (!provider) {
    throw new ValidationError(
      `Cannot open a pull request for ${location.source}: svc cannot tell whether ${host} is GitHub or GitLab. Set SVC_GITOPS_PROVIDER (github or gitlab), with SVC_GITHUB_API_URL or SVC_GITLAB_API_URL for a self-hosted server`,
    );
  }
  const apiUrl = (provider === 'github' ? (s.githubApiUrl ?? GITHUB_API) : (s.gitlabApiUrl ?? GITLAB_API)).replace(/\/+$/, '');
  const apiHost = hostOf(apiUrl);
  const sameHost = apiHost === host || (apiHost === 'api.github.com' && (host === 'github.com' || host === 'www.github.com'));
  if (!sameHost) {
    const variable = provider === 'github' ? 'SVC_GITHUB_API_URL' : 'SVC_GITLAB_API_URL';
    throw new ValidationError(
      `Cannot open a pull request for ${location.source}: the ${provider} API configured is on ${apiHost}, not on the repository's host ${host}, and svc does not send the push token to another host. Set ${variable} to the API of ${host}`,
    );
  }
  const project = new URL(location.url).pathname.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
  if (!project || (provider === 'github' && project.split('/').length !== 2)) {
    throw new ValidationError(
      `Cannot open a pull request for ${location.source}: the URL does not name a ${provider === 'github' ? 'owner/repository' : 'project'} path`,
    );
  }
  return { provider, apiUrl, project };
}
