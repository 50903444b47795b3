/**
 * Credential scrubbing for anything that may reach a caller, a log or a span.
 * Deterministic: the same input always yields the same output. Works on the
 * text as written (no URL normalisation), so an unchanged URL stays byte-equal.
 */

export const REDACTED = '***';

/** Query parameter names whose values are treated as credentials (compared lower-case, `-` and `_` ignored). */
const CREDENTIAL_PARAM = /^(x(amz|goog)?)?(access)?(token|accesstoken|authtoken|idtoken|refreshtoken|privatetoken|jobtoken|gittoken|apikey|key|secret|clientsecret|password|passwd|pwd|pass|auth|authorization|credential|credentials|signature|sig|session|sessiontoken|securitytoken|code|bearer)$/;

// scheme://userinfo@ ; userinfo runs to the last '@' before the path, query or fragment.
// Any number of slashes: WHATWG parsing reads `http:u:p@h`, `http:/u:p@h` and
// `https:///u:p@h` as URLs with userinfo too.
const USERINFO = /^([a-zA-Z][a-zA-Z0-9+.-]*:[\\/]*)([^/\\?#]*)@/;
// What WHATWG parsing ignores: C0 controls and spaces around the URL, tabs and newlines inside it.
const IGNORED_BY_URL_PARSER = /^[\u0000-\u0020]+|[\u0000-\u0020]+$|[\t\n\r]/g;

function isCredentialParam(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    // keep the raw name: a malformed escape is still compared as written
  }
  return CREDENTIAL_PARAM.test(decoded.toLowerCase().replace(/[-_.\s]/g, ''));
}

function scrubQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return eq !== -1 && isCredentialParam(name) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * Scrubs one URL: userinfo becomes `***:***`, credential-looking query values
 * become `***`. Characters a URL parser ignores (surrounding spaces and
 * controls, embedded tabs and newlines) are dropped first, so they cannot hide
 * a credential from the patterns.
 */
export function scrubUrl(url: string): string {
  let out = url.replace(IGNORED_BY_URL_PARSER, '').replace(USERINFO, (_m, scheme: string) => `${scheme}${REDACTED}:${REDACTED}@`);
  const hash = out.indexOf('#');
  const fragment = hash === -1 ? '' : out.slice(hash);
  const beforeFragment = hash === -1 ? out : out.slice(0, hash);
  const q = beforeFragment.indexOf('?');
  if (q !== -1) out = beforeFragment.slice(0, q + 1) + scrubQuery(beforeFragment.slice(q + 1)) + fragment;
  return out;
}

const URL_IN_TEXT = /[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s'"<>`]+/g;

/**
 * Scrubs free text (error messages, log lines, span attributes): every URL in
 * it is scrubbed, then every known secret value is replaced by `***`.
 */
export function scrubText(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text.replace(URL_IN_TEXT, (u) => scrubUrl(u));
  for (const secret of secrets) {
    // short values would redact ordinary words; real tokens are longer
    if (secret && secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  return out;
}
