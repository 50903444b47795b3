import type { GitDeliveryPorts, GitDeliverySettings } from '../../application/gitops/push-with-request.js';
import type { ChangeRecorder } from '../../application/ledger/change-recorder.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { traceGitDelivery } from '../tracing/traced-git-delivery.js';
import type { Config } from '../config/config.js';
import { DataDirCloneWorkspace } from '../git/data-dir-clone-workspace.js';
import { IsomorphicGitPublisher } from '../git/isomorphic-git-publisher.js';
import { HttpPullRequestHost } from './http-pull-request-host.js';

/** One delivery (checkout, commit, push) is bounded like a prompt clone. */
export const DELIVERY_TIMEOUT_MS = 120_000;

export interface GitDelivery {
  ports: GitDeliveryPorts;
  settings: GitDeliverySettings;
}

/**
 * The git delivery of deployManifests, remediate and operate: one
 * isomorphic-git publisher (one workspace under SVC_DATA_DIR/git-deliveries,
 * whose stale folders are swept once) and the hosts' pull request APIs,
 * traced when tracing is on; each delivery recorded in the change ledger
 * through the one ChangeRecorder.
 */
export function createGitDelivery(config: Config, logger: Logger, tracer: Tracer, recorder: ChangeRecorder): GitDelivery {
  const publisher = new IsomorphicGitPublisher({
    workspace: new DataDirCloneWorkspace(config.server.dataDir, logger, 'git-deliveries'),
    internalHosts: config.prompts.repoInternalHosts,
  });
  return {
    ports: { ...traceGitDelivery({ publisher, pullRequests: new HttpPullRequestHost() }, tracer), recorder },
    settings: {
      serverToken: config.prompts.gitToken,
      allowedHosts: config.prompts.allowedRepoHosts,
      author: config.gitops.author,
      pullRequests: { provider: config.gitops.provider, githubApiUrl: config.gitops.githubApiUrl, gitlabApiUrl: config.gitops.gitlabApiUrl },
      timeoutMs: DELIVERY_TIMEOUT_MS,
    },
  };
}
