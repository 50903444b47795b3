import { applyOrder } from '../../domain/deployment/manifest-checks.js';
import { assertCallAllowed } from '../../domain/deployment/workflow.js';
import { validateGitopsTarget, type GitopsInput } from '../../domain/gitops/gitops-target.js';
import { manifestFiles, solutionFolderName } from '../../domain/gitops/manifest-files.js';
import { pullRequestTarget } from '../../domain/gitops/pull-request-target.js';
import { selectPushCredential } from '../../domain/gitops/push-credential.js';
import { normalizeSubPath } from '../../domain/prompts/repo-override.js';
import { pushWithRequest, type GitDeliveryPorts, type GitDeliverySettings } from '../gitops/push-with-request.js';
import type { ToolContext } from '../tool-handler.js';
import { writeContextFor } from '../ledger/change-recorder.js';
import { refOf } from './deploy-checks.js';
import { commitMessage, pullRequestText } from './delivery-text.js';
import type { SolutionSessions } from './solution-sessions.js';

/**
 * deployManifests with `gitops`: the solution's manifests as one YAML file
 * per object, committed to a branch of the caller's repository and pushed,
 * optionally with a pull request; the cluster is not touched (Argo CD or Flux
 * applies what is merged). Every rule that can be checked without I/O is
 * checked first: the repository rules, a credential, the pull request's host.
 */
export class DeliverToGit {
  constructor(
    private readonly ports: GitDeliveryPorts,
    private readonly sessions: SolutionSessions,
    private readonly settings: GitDeliverySettings,
  ) {}

  async execute(solutionId: string, input: GitopsInput, context: ToolContext) {
    // the session first: a call out of order never reaches a repository rule, let alone a remote
    const session = await this.sessions.load(solutionId, context);
    assertCallAllowed('deployManifests', solutionId, session.state);
    const target = validateGitopsTarget(input, { branch: `svc/${solutionId}`, path: '' });
    const { location } = target;
    const { token } = selectPushCredential({
      location,
      headerToken: context.gitToken,
      serverToken: this.settings.serverToken,
      allowedHosts: this.settings.allowedHosts,
    });
    const prTarget = target.pullRequest ? pullRequestTarget(location, this.settings.pullRequests) : undefined;

    const { state } = session;
    const objects = applyOrder(state.manifests!.objects);
    const folder = input.path === undefined ? normalizeSubPath(solutionFolderName(objects, solutionId)) : location.subPath;
    const files = manifestFiles(objects, folder);
    const { outcome, onRemote, pullRequest, ledgerId, ledgerError } = await pushWithRequest(this.ports, {
      location,
      baseBranch: target.baseBranch,
      token,
      message: target.commitMessage ?? commitMessage(state, solutionId),
      author: this.settings.author,
      timeoutMs: this.settings.timeoutMs,
      change: async () => files,
      pullRequest: prTarget,
      requestText: (written) => pullRequestText(state, solutionId, written, context),
      recording: { context: writeContextFor('deployManifests', solutionId, state.intent, context), objects: objects.map(refOf) },
    });

    const fresh = await this.sessions.load(solutionId);
    await this.sessions.save(fresh, {
      ...fresh.state,
      gitDelivery: {
        deliveredAt: new Date().toISOString(),
        repository: location.source,
        branch: outcome.branch,
        commit: outcome.commit,
        ...(pullRequest ? { pullRequestUrl: pullRequest.url } : {}),
      },
    });
    const where = `branch ${outcome.branch} of ${location.source}`;
    const message = outcome.changed
      ? `Pushed commit ${outcome.commit.slice(0, 12)} with ${outcome.files.length} file(s) to ${where}${outcome.branchCreated ? ` (new, from ${outcome.baseBranch})` : ''}`
      : onRemote
        ? `Nothing to push: ${where} already holds these files (commit ${outcome.commit.slice(0, 12)})`
        : `Nothing to push: ${outcome.baseBranch} of ${location.source} already holds these files, so no branch was created`;
    return {
      solutionId,
      status: outcome.changed ? ('pushed' as const) : ('unchanged' as const),
      delivery: 'git' as const,
      gitops: {
        repository: location.source,
        branch: outcome.branch,
        baseBranch: outcome.baseBranch,
        commit: outcome.commit,
        branchCreated: outcome.branchCreated,
        files: outcome.files,
        ...(pullRequest ? { pullRequest } : {}),
      },
      ...(ledgerId ? { ledgerIds: [ledgerId] } : {}),
      ...(ledgerError ? { ledgerError } : {}),
      message: pullRequest ? `${message}; ${pullRequest.existing ? 'the open' : 'opened'} request #${pullRequest.number}: ${pullRequest.url}` : message,
      nextStep: pullRequest
        ? `Review and merge ${pullRequest.url} into ${outcome.baseBranch}; Argo CD or Flux then applies it to the cluster`
        : onRemote
          ? `Open a pull request from ${outcome.branch} into ${outcome.baseBranch} (or call deployManifests again with gitops.pullRequest: true) and merge it; Argo CD or Flux then applies it`
          : `Nothing to review: the base branch already has these manifests`,
      nextSteps: [],
    };
  }
}
