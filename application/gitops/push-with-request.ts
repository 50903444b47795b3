import type { PullRequestSettings, PullRequestTarget } from '../../domain/gitops/pull-request-target.js';
import type { RepoFile } from '../../domain/gitops/manifest-files.js';
import type { RepoLocation } from '../../domain/prompts/repo-override.js';
import type { GitPublisher, PublishOutcome, RepoTree } from '../../domain/ports/git-publisher.js';
import type { OpenedPullRequest, PullRequestHost } from '../../domain/ports/pull-request-host.js';

export interface GitDeliverySettings {
  /** SVC_GIT_TOKEN. */
  serverToken?: string;
  /** SVC_ALLOWED_REPO_HOSTS. */
  allowedHosts: readonly string[];
  /** SVC_GIT_AUTHOR (default `svc <svc@localhost>`). */
  author: { name: string; email: string };
  pullRequests: PullRequestSettings;
  /** Bound on one delivery (checkout, commit, push). */
  timeoutMs: number;
}

export interface GitDeliveryPorts {
  publisher: GitPublisher;
  pullRequests: PullRequestHost;
}

export interface PushRequest {
  location: RepoLocation;
  baseBranch?: string;
  token: string;
  message: string;
  author: { name: string; email: string };
  timeoutMs: number;
  change(tree: RepoTree): Promise<RepoFile[]>;
  /** Open (or find) a pull request here once the branch is on the remote. */
  pullRequest?: PullRequestTarget;
  /** Title and body of the request, from the files written. */
  requestText(files: readonly string[]): { title: string; body: string };
}

export interface PushedChange {
  outcome: PublishOutcome;
  /** The branch is on the remote (pushed now, or there already). */
  onRemote: boolean;
  pullRequest?: OpenedPullRequest;
}

/** One git delivery: commit and push the change, then open the pull request when asked and the branch is on the remote. */
export async function pushWithRequest(ports: GitDeliveryPorts, r: PushRequest): Promise<PushedChange> {
  const outcome = await ports.publisher.publish({
    url: r.location.url,
    displayUrl: r.location.source,
    token: r.token,
    branch: r.location.branch,
    baseBranch: r.baseBranch,
    message: r.message,
    author: r.author,
    change: r.change,
    timeoutMs: r.timeoutMs,
  });
  const onRemote = outcome.changed || outcome.branchExisted;
  const pullRequest =
    r.pullRequest && onRemote
      ? await ports.pullRequests.open({ ...r.pullRequest, head: outcome.branch, base: outcome.baseBranch, ...r.requestText(outcome.files), token: r.token })
      : undefined;
  return { outcome, onRemote, ...(pullRequest ? { pullRequest } : {}) };
}
