import { ValidationError } from '../errors.js';
import { selectCloneCredential } from '../prompts/clone-credential.js';
import type { RepoLocation } from '../prompts/repo-override.js';

export interface PushCredentialContext {
  location: RepoLocation;
  /** `X-Svc-Git-Token`, if the request carried one. */
  headerToken?: string;
  /** `SVC_GIT_TOKEN`, if configured. */
  serverToken?: string;
  /** `SVC_ALLOWED_REPO_HOSTS`. */
  allowedHosts: readonly string[];
}

/**
 * The token a push uses, by SPEC.md's credential table for per-request
 * repositories (the header for any host and scheme; otherwise the server's
 * token only over https to an allowlisted host). A push never goes out
 * anonymously: with no credential this throws a 400 naming what to set,
 * before any connection is made.
 */
export function selectPushCredential(ctx: PushCredentialContext): { token: string; kind: 'header' | 'server' } {
  const credential = selectCloneCredential({
    override: ctx.location,
    headerToken: ctx.headerToken?.trim() || undefined,
    serverToken: ctx.serverToken,
    allowedHosts: ctx.allowedHosts,
  });
  if (credential.kind !== 'none') return credential;
  const host = ctx.location.host;
  const start = `Refused to push to ${ctx.location.source}: a push needs a credential and none applies`;
  switch (credential.reason) {
    case 'plain-http':
      throw new ValidationError(
        `${start}. The server's git token (SVC_GIT_TOKEN) is only ever sent over https://, and this URL uses http://: use the https:// URL, or send a token in the X-Svc-Git-Token header.`,
      );
    case 'host-not-allowlisted':
      throw new ValidationError(
        `${start}. ${host} is not in the allowed repository hosts, so the server's git token is not used for it: send a token for ${host} in the X-Svc-Git-Token header, ` +
          `or add ${host} to SVC_ALLOWED_REPO_HOSTS (chart value gitops.allowedRepoHosts).`,
      );
    case 'no-server-token':
      throw new ValidationError(
        `${start}. Send a token in the X-Svc-Git-Token header, or set SVC_GIT_TOKEN on the server (used for https:// repositories on the hosts in SVC_ALLOWED_REPO_HOSTS).`,
      );
  }
}
