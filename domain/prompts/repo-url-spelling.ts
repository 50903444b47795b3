/**
 * Why a `repo` URL's host might read differently to a WHATWG parser (what svc
 * validates and fetches) and to git, curl or a gate in front of svc. WHATWG
 * parsing forgives a lot that other parsers read another way: it strips tabs
 * and newlines, treats `\` as `/`, decodes percent-escapes and maps Unicode in
 * the host (IDNA), splits userinfo at the last `@`, and folds `0x7f.1` or
 * `2130706433` into a dotted quad. A URL that relies on any of that is refused
 * rather than guessed at: what is accepted reads one way only.
 */

const SCHEME_AND_SLASHES = /^https?:\/\/(?!\/)/i;
const NAME = /^(?:[a-z0-9_-]+\.)*[a-z0-9_-]+\.?$/i;
const CANONICAL_V4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * The reason `raw` is ambiguous, or undefined when every parser reads its host
 * as `parsed.hostname`. `parsed` is `new URL(raw)`, already known to be http(s).
 */
export function ambiguousHostReason(raw: string, parsed: URL): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern looks for
  if (/[\u0000-\u0020\u007f]/.test(raw)) return 'it contains a space, tab, line break or other control character';
  if (raw.includes('\\')) return 'it contains a backslash, which some parsers read as "/" and others as part of the host or user name';
  if (!SCHEME_AND_SLASHES.test(raw)) return 'it does not start with http:// or https:// followed by the host';
  const rest = raw.replace(SCHEME_AND_SLASHES, '');
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const after = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
  if (/^[?#]/.test(after) && after.includes('@')) {
    return 'an "@" follows a "?" or "#" right after the host, so some parsers read the text after it as the host';
  }
  const at = authority.split('@');
  if (at.length > 2) return 'it has more than one "@" before the host (write an "@" in a user name or password as %40)';
  const hostPort = at[at.length - 1];
  const host = hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.replace(/:[^:]*$/, '');
  const port = hostPort.slice(host.length);
  if (port !== '' && !/^:\d{1,5}$/.test(port)) return 'the port is not a number';
  if (host.startsWith('[')) return undefined; // an IPv6 literal: WHATWG already refused anything but hex, ':' and '.'
  if (host.includes('%')) return 'the host is percent-encoded';
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern looks for
  if (/[^\u0000-\u007f]/.test(host)) return 'the host has non-ASCII characters, which parsers map differently (send its IDNA A-label, xn--...)';
  if (!NAME.test(host)) return 'the host has characters other than letters, digits, ".", "-" and "_", or an empty label';
  // WHATWG reads a host whose last label is a number as IPv4 (what curl does varies with its version)
  const lastLabel = host.replace(/\.$/, '').split('.').pop() ?? '';
  if (/^(?:\d+|0x[0-9a-f]*)$/i.test(lastLabel) && !CANONICAL_V4.test(host)) {
    return 'the host is an IPv4 address not written as four decimal numbers (decimal, octal and hex forms read differently across parsers)';
  }
  if (host.toLowerCase() !== parsed.hostname) return 'the host reads differently once normalised';
  return undefined;
}
