import { DependencyError } from '../errors.js';
import type { RepoFile } from '../gitops/manifest-files.js';

/** Read access to the tree a delivery starts from (the branch's tip, or the base branch's for a new branch). */
export interface RepoTree {
  /** Paths (relative to the repository root, `/`-separated) of the regular files under `folder` ('' is the root), recursively; `.git` never included. */
  list(folder: string): Promise<string[]>;
  /** A file's text, or undefined when there is no such regular file. */
  read(path: string): Promise<string | undefined>;
}

export interface PublishRequest {
  /** http(s) URL of the repository, already validated; may carry userinfo, sent only to its host. */
  url: string;
  /** The URL with credentials scrubbed: used in every message. */
  displayUrl: string;
  /** Sent only to `url`'s scheme, host and port, as Basic auth (x-access-token). */
  token: string;
  /** The branch to push to; created from the base branch when missing. Never the base or default branch. */
  branch: string;
  /** Undefined: the remote's default branch. */
  baseBranch?: string;
  message: string;
  author: { name: string; email: string };
  /** The files to write, computed from the tree the commit starts from (paths relative to the root). */
  change(tree: RepoTree): Promise<RepoFile[]>;
  /** Abort the whole delivery after this many milliseconds. */
  timeoutMs: number;
}

export interface PublishOutcome {
  /** The commit now at the tip of `branch` (the existing tip when nothing changed). */
  commit: string;
  branch: string;
  /** The base branch used (the remote's default branch when none was named). */
  baseBranch: string;
  /** `branch` was on the remote before this delivery. */
  branchExisted: boolean;
  /** This delivery created `branch` on the remote (it did not exist, and a commit was pushed). */
  branchCreated: boolean;
  /** False when the files already had this content: nothing was committed or pushed. */
  changed: boolean;
  /** Paths written, relative to the repository root. */
  files: string[];
}

/**
 * Why a remote that answered refused the update: `non-fast-forward` (the
 * branch moved), `rejected` (a hook: a protected branch), `unauthorized`
 * (401), `forbidden` (403), `http-<status>` (another 4xx).
 */
export type GitRefusal = 'non-fast-forward' | 'rejected' | 'unauthorized' | 'forbidden' | `http-${number}`;

/** The refusal an HTTP error status means, or undefined for a server error (5xx: the remote failed, it did not refuse). */
export function refusalOfStatus(status: number | undefined): GitRefusal | undefined {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  return status !== undefined && status >= 400 && status < 500 ? `http-${status}` : undefined;
}

/** A remote that could not be reached or refused the push (502): the message names the repository and why, the token scrubbed. */
export class GitPublishError extends DependencyError {
  constructor(
    message: string,
    /** HTTP status of the failing answer, when there was one. */
    readonly httpStatus?: number,
    /** Set when the remote answered and refused; undefined when it could not be reached, failed or timed out. */
    readonly refusal?: GitRefusal,
  ) {
    super('git', message);
  }
}

/**
 * Commits files to a branch of a remote repository and pushes it, over smart
 * HTTP, always to a per-request repository's rules (every connection checked
 * by the connect-time guard). Never force-pushes, never pushes to the base or
 * default branch.
 */
export interface GitPublisher {
  /**
   * Reads the remote's branches, checks out `branch` (or the base branch for a
   * new branch) at depth 1, writes what `change` returns, commits and pushes.
   * Throws ValidationError (400) when `branch` is the base or default branch or
   * the base branch does not exist; GitPublishError (502) when the remote cannot
   * be reached, answers an error status (401, 403, ...), or refuses the update
   * (non-fast-forward, a protected branch's hook), or on the timeout.
   */
  publish(request: PublishRequest): Promise<PublishOutcome>;
}
