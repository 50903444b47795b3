import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import { DomainError } from '../../domain/errors.js';
import {
  GIT_FILES_LISTED,
  GIT_TARGET,
  ledgerCallerOf,
  REQUEST_MAX_CHARS,
  type ChangeOutcome,
  type ChangeRecord,
  type GitChange,
} from '../../domain/ledger/change-entry.js';
import { targetOf } from '../../domain/ledger/object-state.js';
import { GitPublishError, type PublishOutcome } from '../../domain/ports/git-publisher.js';
import type { OpenedPullRequest } from '../../domain/ports/pull-request-host.js';
import { scrubText, scrubUrl } from '../../domain/security/scrub-credentials.js';
import type { WriteContext } from './change-recorder.js';

/** A git delivery about to be made: where to, and which cluster objects it changes the desired state of. */
export interface PlannedPush {
  /** The repository's URL with credentials scrubbed. */
  repository: string;
  branch: string;
  objects: readonly ResourceRef[];
  /** The dry run of the changes on the live objects, when there was one (remediate and operate). */
  dryRun?: ChangeRecord['dryRun'];
  /** The credential used: never recorded, scrubbed from any message that echoes it. */
  token: string;
}

/** How far a delivery went: the push (when it reached the remote), the pull request, and what stopped it. */
export interface PushResult {
  outcome?: PublishOutcome;
  pullRequest?: OpenedPullRequest;
  error?: unknown;
}

const MESSAGE_MAX = 2000;

/** Every spelling of the token a remote or a host could echo: raw, and inside Basic auth. */
function spellings(token: string): string[] {
  return [token, Buffer.from(`x-access-token:${token}`).toString('base64'), encodeURIComponent(token)];
}

function messageOf(error: unknown, token: string): string {
  const text = error instanceof DomainError ? error.message : 'the delivery failed unexpectedly';
  return scrubText(text, spellings(token)).slice(0, MESSAGE_MAX);
}

/** Applied once the commit is on the remote (a failed pull request after it does not undo the push); refused when the remote answered no. */
function outcomeOf(result: PushResult, token: string): ChangeOutcome {
  if (result.error === undefined || result.outcome) return { status: 'applied' };
  const message = messageOf(result.error, token);
  if (result.error instanceof GitPublishError && result.error.refusal) return { status: 'refused', reason: result.error.refusal, message };
  return { status: 'failed', message };
}

/**
 * The ledger record of one git delivery: target the branch (GIT_TARGET), the
 * change a `push`, `git` saying where it went and which objects it changes,
 * no before state and no inverse (a commit is undone in git: close the pull
 * request or revert the commit). The token never enters it.
 */
export function gitChangeRecord(context: WriteContext, planned: PlannedPush, result: PushResult): ChangeRecord {
  const { outcome, pullRequest } = result;
  const files = outcome?.files ?? [];
  const git: GitChange = {
    repository: scrubUrl(planned.repository),
    branch: outcome?.branch ?? planned.branch,
    ...(outcome ? { baseBranch: outcome.baseBranch, commit: outcome.commit, pushed: outcome.changed, branchCreated: outcome.branchCreated } : {}),
    files: files.slice(0, GIT_FILES_LISTED),
    fileCount: files.length,
    objects: planned.objects.map(targetOf),
    ...(pullRequest ? { pullRequest: { url: scrubUrl(pullRequest.url), number: pullRequest.number, existing: pullRequest.existing } } : {}),
    ...(outcome && result.error !== undefined ? { pullRequestError: messageOf(result.error, planned.token) } : {}),
  };
  return {
    type: 'change',
    caller: ledgerCallerOf(context.caller),
    tool: context.tool,
    ...(context.sessionId ? { sessionId: context.sessionId } : {}),
    ...(context.request ? { request: context.request.slice(0, REQUEST_MAX_CHARS) } : {}),
    approval: context.approval,
    target: { ...GIT_TARGET, name: git.branch },
    before: null,
    ...(planned.dryRun ? { dryRun: planned.dryRun } : {}),
    change: { method: 'push' },
    outcome: outcomeOf(result, planned.token),
    inverse: null,
    git,
  };
}
