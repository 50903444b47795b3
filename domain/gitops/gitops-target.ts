import { ValidationError } from '../errors.js';
import { validateRepoOverride, type RepoLocation } from '../prompts/repo-override.js';

/** Where a delivery through git goes, as a caller asks for it (deployManifests' `gitops`). */
export interface GitopsInput {
  repo: string;
  path?: string;
  branch?: string;
  baseBranch?: string;
  commitMessage?: string;
  pullRequest?: boolean;
}

/** A delivery target that passed the same rules as a per-request prompt repository. */
export interface GitopsTarget {
  /** `subPath` is the folder files go to; `branch` the branch pushed to (never the base branch). */
  location: RepoLocation;
  /** Undefined: the remote's default branch. */
  baseBranch?: string;
  commitMessage?: string;
  pullRequest: boolean;
}

/**
 * What git itself refuses in a branch name beyond the prompt rules' character
 * set (git check-ref-format): caught here, so the caller gets a 400 and not a
 * remote refusal after a clone.
 */
function refFormatProblem(branch: string): string | undefined {
  if (branch.startsWith('-') || branch.startsWith('/') || branch.endsWith('/') || branch.endsWith('.')) return 'it starts with - or /, or ends with / or .';
  if (branch.includes('..') || branch.includes('//')) return 'it contains .. or //';
  if (branch.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) return 'a part starts with . or ends with .lock';
  if (branch === 'HEAD') return 'HEAD is not a branch';
  return undefined;
}

function checkRefFormat(branch: string, field: string): void {
  const problem = refFormatProblem(branch);
  if (problem) throw new ValidationError(`Invalid gitops ${field}: ${branch} (${problem})`);
}

/**
 * Validates a git delivery target before any I/O, with exactly the prompt
 * repositories' rules for `repo`, `path` and the branch names (SPEC.md's
 * messages), plus git's own ref-name rules. `defaults` fill `branch` and `path`.
 * Pushing to the base branch is refused here when both are named; the adapter
 * checks it again against the remote's default branch.
 */
export function validateGitopsTarget(input: GitopsInput, defaults: { branch: string; path: string }): GitopsTarget {
  const branch = input.branch === undefined || input.branch === '' ? defaults.branch : input.branch;
  const location = validateRepoOverride({ repo: input.repo, path: input.path ?? defaults.path, branch });
  if (!location) throw new ValidationError('Invalid gitops repo: an http(s) URL of a git repository is required');
  checkRefFormat(location.branch, 'branch');
  let baseBranch: string | undefined;
  if (input.baseBranch !== undefined && input.baseBranch !== '') {
    baseBranch = validateRepoOverride({ repo: input.repo, branch: input.baseBranch })!.branch;
    checkRefFormat(baseBranch, 'baseBranch');
    if (baseBranch === location.branch) {
      throw new ValidationError(`Invalid gitops branch: ${branch} is the base branch; svc never pushes to the base branch, name another branch`);
    }
  }
  return { location, baseBranch, commitMessage: input.commitMessage, pullRequest: input.pullRequest === true };
}
