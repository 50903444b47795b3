import { DependencyError } from '../errors.js';

export type GitProvider = 'github' | 'gitlab';

export interface PullRequestSpec {
  provider: GitProvider;
  /** REST API base: `https://api.github.com`, `https://ghe.example.com/api/v3`, `https://gitlab.example.com/api/v4`. */
  apiUrl: string;
  /** `owner/name` on GitHub; the project's full path (`group/sub/name`) on GitLab. */
  project: string;
  /** Source branch. */
  head: string;
  /** Target branch. */
  base: string;
  title: string;
  body: string;
  /** Sent only to `apiUrl`'s host. */
  token: string;
}

export interface OpenedPullRequest {
  /** The web page of the pull (merge) request. */
  url: string;
  /** GitHub's number, GitLab's iid. */
  number: number;
  /** True when one was already open from `head` to `base` and is answered instead of a new one. */
  existing: boolean;
}

/** The host's API refused or failed (502); the message names the project and the host's reason, the token scrubbed. */
export class PullRequestError extends DependencyError {
  constructor(message: string) {
    super('git host API', message);
  }
}

/** Opens pull requests (GitHub) or merge requests (GitLab) through the host's REST API. */
export interface PullRequestHost {
  /**
   * Opens a request from `head` to `base`; when one is already open between
   * them, answers it with `existing: true`. Throws PullRequestError on an
   * error answer, an unreachable host or a timeout.
   */
  open(spec: PullRequestSpec): Promise<OpenedPullRequest>;
}
