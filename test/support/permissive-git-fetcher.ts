import type { CloneOutcome, CloneRequest, GitFetcher } from '../../domain/ports/git-fetcher.js';
import { IsomorphicGitFetcher } from '../../infrastructure/git/isomorphic-git-fetcher.js';

/**
 * The real fetcher, but following redirects to loopback IP literals, so an
 * HTTP test can watch the credential being dropped on the localhost ->
 * 127.0.0.1 redirect instead of the redirect being refused outright.
 */
export class PermissiveGitFetcher implements GitFetcher {
  private readonly inner = new IsomorphicGitFetcher();
  clone(request: CloneRequest): Promise<CloneOutcome> {
    return this.inner.clone({ ...request, refuseNonPublicRedirects: false });
  }
}
