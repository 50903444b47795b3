import type gitModule from 'isomorphic-git';
import type { HostResolver } from './connect-guard.js';
import { gitDeadline } from './git-deadline.js';
import { ScopedGitHttpClient } from './scoped-git-http-client.js';

export type Git = typeof gitModule;

/** What one isomorphic-git operation over smart HTTP is bound by. */
export interface GitSessionOptions {
  /** The repository URL: its scheme and host:port are the only origin the token goes to. */
  url: string;
  token?: string;
  timeoutMs: number;
  /** Bytes the operation may download in total. */
  maxBytes: number;
  /** A per-request repository: the connect-time guard refuses every non-public destination. */
  refuseNonPublicRedirects: boolean;
  /** SVC_REPO_INTERNAL_HOSTS. */
  internalHosts?: readonly string[];
  resolve?: HostResolver;
  /** What the size limit is for, in its message. */
  limitFor?: string;
}

/**
 * Runs one git operation (a clone, a delivery) the one way both adapters
 * need: isomorphic-git loaded on first use (a server on the built-in prompts
 * never pays for it), a deadline whose signal aborts every request, the
 * scoped HTTP client on it, and the deadline ended whatever happens. A
 * failure goes to `failed` with the client (what it saw: a size cut, a
 * dropped credential, the failing answer) and whether the deadline passed;
 * `failed` throws the adapter's error, or answers a value instead.
 */
export async function runGitSession<T>(
  options: GitSessionOptions,
  work: (git: Git, http: ScopedGitHttpClient) => Promise<T>,
  failed: (error: unknown, http: ScopedGitHttpClient, timedOut: boolean) => T,
): Promise<T> {
  const deadline = gitDeadline(options.timeoutMs);
  const client = new ScopedGitHttpClient({
    repoUrl: options.url,
    token: options.token,
    signal: deadline.signal,
    maxBytes: options.maxBytes,
    refuseNonPublicRedirects: options.refuseNonPublicRedirects,
    internalHosts: options.internalHosts,
    resolve: options.resolve,
    limitFor: options.limitFor,
  });
  try {
    const git = (require('isomorphic-git') as { default: Git }).default;
    // after a timeout the operation may still be settling: the race never leaves its rejection unhandled
    return await deadline.race(work(git, client));
  } catch (e) {
    return failed(e, client, deadline.signal.aborted);
  } finally {
    deadline.end();
  }
}
