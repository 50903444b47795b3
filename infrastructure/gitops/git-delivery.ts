import { DeliverToGit } from '../../application/deployment/deliver-to-git.js';
import type { SolutionSessions } from '../../application/deployment/solution-sessions.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Config } from '../config/config.js';
import { DataDirCloneWorkspace } from '../git/data-dir-clone-workspace.js';
import { IsomorphicGitPublisher } from '../git/isomorphic-git-publisher.js';
import { HttpPullRequestHost } from './http-pull-request-host.js';

/** One delivery (checkout, commit, push) is bounded like a prompt clone. */
export const DELIVERY_TIMEOUT_MS = 120_000;

/** deployManifests' git delivery: the isomorphic-git publisher under SVC_DATA_DIR/git-deliveries and the hosts' pull request APIs. */
export function createDeliverToGit(config: Config, sessions: SolutionSessions, logger: Logger): DeliverToGit {
  const publisher = new IsomorphicGitPublisher({
    workspace: new DataDirCloneWorkspace(config.server.dataDir, logger, 'git-deliveries'),
    internalHosts: config.prompts.repoInternalHosts,
  });
  return new DeliverToGit(publisher, new HttpPullRequestHost(), sessions, {
    serverToken: config.prompts.gitToken,
    allowedHosts: config.prompts.allowedRepoHosts,
    author: config.gitops.author,
    pullRequests: { provider: config.gitops.provider, githubApiUrl: config.gitops.githubApiUrl, gitlabApiUrl: config.gitops.gitlabApiUrl },
    timeoutMs: DELIVERY_TIMEOUT_MS,
  });
}
