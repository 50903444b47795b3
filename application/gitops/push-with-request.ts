import type { PullRequestSettings, PullRequestTarget } from '../../domain/gitops/pull-request-target.js';
import type { RepoFile } from '../../domain/gitops/manifest-files.js';
import type { RepoLocation } from '../../domain/prompts/repo-override.js';
import type { GitPublisher, PublishOutcome, RepoTree } from '../../domain/ports/git-publisher.js';
import type { OpenedPullRequest, PullRequestHost } from '../../domain/ports/pull-request-host.js';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import { DomainError } from '../../domain/errors.js';
import type { ChangeRecord } from '../../domain/ledger/change-entry.js';
import type { ChangeRecorder, WriteContext } from '../ledger/change-recorder.js';
import { gitChangeRecord, type PushResult } from '../ledger/git-change-record.js';

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
  /** Records each delivery in the change ledger (absent: not recorded, as in unit tests without a ledger). */
  recorder?: ChangeRecorder;
}

/** Who and what a delivery is for, as the ledger records it. */
export interface DeliveryRecording {
  context: WriteContext;
  /** The cluster objects whose desired state the commit changes. */
  objects: readonly ResourceRef[];
  /** The dry run of the changes on the live objects, when there was one. */
  dryRun?: ChangeRecord['dryRun'];
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
  /** Record the delivery (pushed, refused or failed) in the change ledger, when the ports have a recorder. */
  recording?: DeliveryRecording;
}

export interface PushedChange {
  outcome: PublishOutcome;
  /** The branch is on the remote (pushed now, or there already). */
  onRemote: boolean;
  pullRequest?: OpenedPullRequest;
  /** The change ledger entry of this delivery. */
  ledgerId?: string;
  /** Set when the delivery could not be recorded (it happened all the same). */
  ledgerError?: string;
}

/**
 * One git delivery: commit and push the change, then open the pull request
 * when asked and the branch is on the remote. With a recorder, the one place
 * a git delivery is recorded: one ledger entry whatever happened (pushed,
 * refused by the remote, failed), the token never in it; an error thrown
 * names its entry.
 */
export async function pushWithRequest(ports: GitDeliveryPorts, r: PushRequest): Promise<PushedChange> {
  const result: PushResult = {};
  try {
    result.outcome = await ports.publisher.publish({
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
    const { outcome } = result;
    if (r.pullRequest && (outcome.changed || outcome.branchExisted)) {
      result.pullRequest = await ports.pullRequests.open({
        ...r.pullRequest,
        head: outcome.branch,
        base: outcome.baseBranch,
        ...r.requestText(outcome.files),
        token: r.token,
      });
    }
  } catch (e) {
    result.error = e;
  }
  const ledger = await record(ports, r, result);
  if (result.error !== undefined) {
    // the caller learns where the attempt was recorded, as a refused cluster write's message says
    if (ledger.ledgerId && result.error instanceof DomainError) result.error.message += ` (change ledger entry ${ledger.ledgerId})`;
    throw result.error;
  }
  const outcome = result.outcome!;
  return { outcome, onRemote: outcome.changed || outcome.branchExisted, ...(result.pullRequest ? { pullRequest: result.pullRequest } : {}), ...ledger };
}

async function record(ports: GitDeliveryPorts, r: PushRequest, result: PushResult): Promise<Pick<PushedChange, 'ledgerId' | 'ledgerError'>> {
  if (!ports.recorder || !r.recording) return {};
  const { context, objects, dryRun } = r.recording;
  return ports.recorder.append(
    context,
    gitChangeRecord(context, { repository: r.location.source, branch: r.location.branch, objects, dryRun, token: r.token }, result),
  );
}
