import { CredentialWithheldError, type CloneCredential } from '../../domain/prompts/clone-credential.js';
import type { RepoLocation } from '../../domain/prompts/repo-override.js';
import { GitFetchError } from '../../domain/ports/git-fetcher.js';
import { PromptsSourceError } from '../../domain/errors.js';
import { sourceIdentity } from './prompt-repo-cache.js';

const NEEDS_CREDENTIAL = 'The repository needs a credential and none was sent';

/**
 * Adds the remedy to a clone that failed for want of a credential (SPEC.md,
 * Fetch errors): the host rules withheld the server token, or there is none.
 * Other failures pass through unchanged (git's message, already scrubbed).
 */
export function explainCloneFailure(error: unknown, location: RepoLocation, credential: CloneCredential, isOverride: boolean): unknown {
  if (!(error instanceof GitFetchError) || !error.authRequired || credential.kind !== 'none') return error;
  const identity = sourceIdentity(location);
  switch (credential.reason) {
    case 'host-not-allowlisted':
      return new CredentialWithheldError(
        `${error.message}. ${NEEDS_CREDENTIAL}: ${location.host} is not in the allowed repository hosts, so the server's git token is not used for it. ` +
          `Either send a token for ${location.host} in the X-Svc-Git-Token header, or add ${location.host} to the allowed repository hosts ` +
          `(SVC_ALLOWED_REPO_HOSTS, chart value gitops.allowedRepoHosts).`,
        identity,
        location.source,
      );
    case 'plain-http':
      return new CredentialWithheldError(
        `${error.message}. ${NEEDS_CREDENTIAL}: the server's git token is only ever sent over https://, and this URL uses http://. ` +
          `Use the https:// URL of the repository.`,
        identity,
        location.source,
      );
    case 'no-server-token':
      return new PromptsSourceError(
        `${error.message}. ${NEEDS_CREDENTIAL}: the server has no git token (SVC_GIT_TOKEN is not set). ` +
          (isOverride ? 'Send a token in the X-Svc-Git-Token header, or set SVC_GIT_TOKEN on the server.' : 'Set SVC_GIT_TOKEN on the server.'),
      );
  }
}
