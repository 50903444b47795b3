/**
 * Credential scrubbing for anything that may reach a caller, a log or a span.
 * Deterministic: the same input always yields the same output. Works on the
 * text as written (no URL normalisation), so an unchanged URL stays byte-equal.
 */

import { redactSecrets, secretRedactor } from './secret-spellings.js';

export const REDACTED = '***';

/** Query parameter names whose values are treated as credentials (compared lower-case, `-` and `_` ignored). */
const CREDENTIAL_PARAM =
  /^(x(amz|goog)?)?(access)?(token|accesstoken|authtoken|idtoken|refreshtoken|privatetoken|jobtoken|gittoken|apikey|key|secret|clientsecret|password|passwd|pwd|pass|auth|authorization|credential|credentials|signature|sig|session|sessiontoken|securitytoken|code|bearer)$/;

// scheme://userinfo@ ; userinfo runs to the last '@' before the path, query or fragment.
// Any number of slashes: WHATWG parsing reads `http:u:p@h`, `http:/u:p@h` and
// `https:///u:p@h` as URLs with userinfo too.
const USERINFO = /^([a-zA-Z][a-zA-Z0-9+.-]*:[\\/]*)([^/\\?#]*)@/;
// What WHATWG parsing ignores: C0 controls and spaces around the URL, tabs and newlines inside it.
// eslint-disable-next-line no-control-regex -- control characters are what this pattern looks for
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

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isSchemeChar = (c: number) => isLetter(c) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46; // + - .
const URL_STOP = /[\s'"<>`]/;

/**
 * Every `scheme://rest` in the text (scheme `[a-zA-Z][a-zA-Z0-9+.-]*`, rest up
 * to whitespace or a quote/bracket), passed through `scrub`. Written as a scan
 * from each `://` rather than a regex: the equivalent regex backtracks over
 * every run of letters and digits, which is quadratic (a 20000-character token
 * in an `evidence` field took about a second; a 1 MB body, hours).
 */
function replaceUrls(text: string, scrub: (url: string) => string): string {
  let out = '';
  let from = 0;
  let searchAt = 0;
  for (;;) {
    const colon = text.indexOf('://', searchAt);
    if (colon === -1) break;
    let start = colon;
    while (start > from && isSchemeChar(text.charCodeAt(start - 1))) start--;
    while (start < colon && !isLetter(text.charCodeAt(start))) start++;
    let end = colon + 3;
    while (end < text.length && !URL_STOP.test(text[end]!)) end++;
    if (start === colon || end === colon + 3) {
      searchAt = colon + 1;
      continue;
    }
    out += text.slice(from, start) + scrub(text.slice(start, end));
    from = searchAt = end;
  }
  return out + text.slice(from);
}

/**
 * Scrubs free text (error messages, log lines, span attributes): every URL in
 * it is scrubbed, then every known secret value is replaced by `***`, in
 * every spelling a server could echo it in (percent-encoded, base64,
 * base64url, also inside a longer encoded value: `secretSpellings`).
 * Linear in the length of the text.
 */
export function scrubText(text: string, secrets: readonly (string | undefined)[] = []): string {
  return redactSecrets(replaceUrls(text, scrubUrl), secrets, REDACTED);
}

/** scrubText for many texts with the same secrets (every attribute of every span an exporter sends): the secrets' spellings are worked out once. */
export function textScrubber(secrets: readonly (string | undefined)[]): (text: string) => string {
  const redact = secretRedactor(secrets, REDACTED);
  return (text) => redact(replaceUrls(text, scrubUrl));
}
