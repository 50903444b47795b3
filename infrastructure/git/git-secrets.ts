import { basicAuthFor, type ScopedGitHttpClient } from './scoped-git-http-client.js';

/** How much of a text/plain error body goes into a message, verbatim. */
const ECHO_CAP = 4096;

/** Every spelling of a credential that could come back in an error: raw, decoded, inside Basic auth. */
export function credentialSpellings(url: string, token?: string): string[] {
  const secrets: string[] = [];
  if (token) secrets.push(token, basicAuthFor(token).slice(6));
  try {
    const u = new URL(url);
    for (const part of [u.username, u.password]) {
      if (!part) continue;
      secrets.push(part);
      try {
        secrets.push(decodeURIComponent(part));
      } catch {
        // a malformed escape stays as written
      }
    }
    if (u.username || u.password) {
      secrets.push(Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64'));
    }
  } catch {
    // the URL was validated upstream; nothing more to collect
  }
  return secrets;
}

/** The text/plain body of the failing answer (capped) and a dropped credential, to follow git's own "HTTP Error" line. */
export function httpFailureDetail(client: ScopedGitHttpClient): string {
  let detail = '';
  const failure = client.lastFailure;
  const plain = failure && /^text\/plain\b/i.test(failure.contentType) ? failure.body.replace(/\s+$/, '') : '';
  if (plain) detail += `: ${plain.length > ECHO_CAP ? `${plain.slice(0, ECHO_CAP)}…` : plain}`;
  if (client.droppedCredentialTo) {
    detail += ` (the credential was not forwarded to ${client.droppedCredentialTo} after a cross-host redirect)`;
  }
  return detail;
}
