import { PromptsSourceError } from '../errors.js';

/** What to clone. `token`, when present, may be sent only to `url`'s host. */
export interface CloneRequest {
  /** http(s) URL; may carry userinfo, which is likewise sent only to `url`'s host. */
  url: string;
  /** The URL as callers may see it (credentials scrubbed); used in every message. */
  displayUrl: string;
  branch: string;
  /** Target directory; created by the fetcher; must not exist yet. */
  dir: string;
  token?: string;
  /** Abort after this many milliseconds. */
  timeoutMs: number;
  /**
   * A per-request repo: refuse to connect to a non-public address (loopback,
   * private, ...), whether a redirect names it or a host name resolves to it,
   * so a stranger's URL cannot reach into the server's network. Host names the
   * fetcher was configured with as internal are exempt; so is the configured repo (false).
   */
  refuseNonPublicRedirects: boolean;
}

/** `cloned`: the branch is checked out in `dir`. `not-a-repository`: the URL answered 200 with something git cannot read. */
export type CloneOutcome = 'cloned' | 'not-a-repository';

/** A failed clone. The message is safe to show: URLs scrubbed, tokens redacted. */
export class GitFetchError extends PromptsSourceError {
  constructor(
    message: string,
    /** HTTP status of the failing response, when there was one. */
    readonly httpStatus?: number,
    /** The request went out without any credential and the answer was 401 or 403. */
    readonly authRequired = false,
  ) {
    super(message);
  }
}

/** Shallow (depth 1), single-branch clone over http(s). */
export interface GitFetcher {
  /**
   * Clones `request.branch` of `request.url` into `request.dir`. Resolves
   * 'not-a-repository' for a 200 answer that is not a git repository (its body
   * is discarded). Throws GitFetchError on an error status (with the status
   * code and a text/plain body verbatim), a refused connection, a missing
   * branch, the size limit, or the timeout (`timeoutMs`).
   */
  clone(request: CloneRequest): Promise<CloneOutcome>;
}
