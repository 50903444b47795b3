import { PromptsSourceError } from '../errors.js';
import type { RepoLocation } from './repo-override.js';

/** Why a clone goes out without a credential; it decides the remedy a 401 names. */
export type NoCredentialReason = 'host-not-allowlisted' | 'plain-http' | 'no-server-token';

export type CloneCredential = { kind: 'header'; token: string } | { kind: 'server'; token: string } | { kind: 'none'; reason: NoCredentialReason };

export interface CredentialContext {
  /** The validated per-request override; undefined means the configured repo. */
  override?: RepoLocation;
  /** `X-Svc-Git-Token`, if the request carried one. */
  headerToken?: string;
  /** `SVC_GIT_TOKEN`, if configured. */
  serverToken?: string;
  /** Allowed repo hosts (`SVC_ALLOWED_REPO_HOSTS`). */
  allowedHosts: readonly string[];
}

function canonicalHost(host: string): string {
  return host.toLowerCase().replace(/\.+$/, '');
}

export function isAllowlistedHost(host: string, allowedHosts: readonly string[]): boolean {
  const h = canonicalHost(host);
  return allowedHosts.some((a) => canonicalHost(a) === h);
}

/**
 * SPEC.md's credential table: the header token for any override host and
 * scheme; otherwise the server token only for the configured repo (never
 * gated) or an https override on an allowlisted host; otherwise none.
 * The header has no effect without an override.
 */
export function selectCloneCredential(ctx: CredentialContext): CloneCredential {
  const server = (): CloneCredential => (ctx.serverToken ? { kind: 'server', token: ctx.serverToken } : { kind: 'none', reason: 'no-server-token' });
  if (!ctx.override) return server();
  if (ctx.headerToken) return { kind: 'header', token: ctx.headerToken };
  if (ctx.override.scheme !== 'https') return { kind: 'none', reason: 'plain-http' };
  if (!isAllowlistedHost(ctx.override.host, ctx.allowedHosts)) return { kind: 'none', reason: 'host-not-allowlisted' };
  return server();
}

/**
 * A clone needed a credential that the host rules withheld (host not
 * allowlisted, or plain http). A refresh treats it as "not refreshed" rather
 * than a failure; everything else answers 502 with the remedy in the message.
 */
export class CredentialWithheldError extends PromptsSourceError {
  constructor(
    message: string,
    /** Scrubbed source, branch and folder: identifies the cached copy without any secret. */
    readonly sourceIdentity: string,
    readonly source: string,
  ) {
    super(message);
  }
}
