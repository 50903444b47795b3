import fs from 'node:fs';
import { GitFetchError, type CloneOutcome, type CloneRequest, type GitFetcher } from '../../domain/ports/git-fetcher.js';
import { scrubText } from '../../domain/security/scrub-credentials.js';
import type { HostResolver } from './connect-guard.js';
import { credentialSpellings, httpFailureDetail } from './git-secrets.js';
import { runGitSession } from './git-session.js';
import { GitTransportError, type ScopedGitHttpClient, sizeLimitMessage } from './scoped-git-http-client.js';

export interface IsomorphicGitFetcherOptions {
  /** Bytes a clone may download in total; default 64 MiB. */
  maxBytes?: number;
  /** SVC_REPO_INTERNAL_HOSTS: host names a per-request clone may reach even when they resolve to non-public addresses. */
  internalHosts?: readonly string[];
  /** Resolver for per-request clones' host names; the system's by default (tests inject one). */
  resolve?: HostResolver;
}

function isAnonymous(request: CloneRequest): boolean {
  if (request.token) return false;
  const u = new URL(request.url);
  return !u.username && !u.password;
}

interface IsoGitError {
  code?: string;
  message?: string;
  data?: { statusCode?: number; statusMessage?: string };
}

/** GitFetcher over isomorphic-git: depth 1, one branch, no tags, http and https. */
export class IsomorphicGitFetcher implements GitFetcher {
  private readonly maxBytes: number;

  constructor(private readonly options: IsomorphicGitFetcherOptions = {}) {
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  async clone(request: CloneRequest): Promise<CloneOutcome> {
    return runGitSession<CloneOutcome>(
      { ...request, maxBytes: this.maxBytes, internalHosts: this.options.internalHosts, resolve: this.options.resolve },
      async (git, http) => {
        await git.clone({ fs, http, dir: request.dir, url: request.url, ref: request.branch, singleBranch: true, depth: 1, noTags: true });
        if (http.sizeExceeded) throw new GitTransportError('size limit');
        return 'cloned';
      },
      (e, http, timedOut) => {
        if ((e as IsoGitError).code === 'SmartHttpError' && !http.sizeExceeded && !timedOut) return 'not-a-repository';
        throw this.toFetchError(e as IsoGitError, request, http, timedOut);
      },
    );
  }

  private toFetchError(e: IsoGitError, request: CloneRequest, client: ScopedGitHttpClient, timedOut: boolean): GitFetchError {
    const prefix = `Failed to clone ${request.displayUrl} (branch ${request.branch})`;
    const secrets = credentialSpellings(request.url, request.token);
    const safe = (text: string) => scrubText(text, secrets);
    if (timedOut) {
      return new GitFetchError(`${prefix}: timed out after ${request.timeoutMs / 1000} s`);
    }
    // isomorphic-git reports a stream cut short as an empty response; say why it was cut
    if (client.sizeExceeded) return new GitFetchError(`${prefix}: ${sizeLimitMessage(this.maxBytes)}`);
    const status = e.code === 'HttpError' ? e.data?.statusCode : undefined;
    let detail = e.message ?? String(e);
    if (status !== undefined) {
      detail += httpFailureDetail(client);
    } else if (e.code === 'NotFoundError') {
      detail = `branch ${request.branch} not found (${detail})`;
    }
    const anonymous = isAnonymous(request) || !!client.droppedCredentialTo;
    const authRequired = (status === 401 || status === 403) && anonymous;
    return new GitFetchError(safe(`${prefix}: ${detail}`), status, authRequired);
  }
}
