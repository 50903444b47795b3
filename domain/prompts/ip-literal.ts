/**
 * Classifies IP literals as they come out of WHATWG URL parsing (`URL.hostname`),
 * which already folds decimal, hex, octal, shorthand and trailing-dot IPv4
 * spellings into dotted quads and IPv6 into compressed hex in brackets. Pure
 * string work: a hostname is never resolved.
 *
 * The tables follow IANA's IPv4 and IPv6 special-purpose address registries:
 * every block whose "Globally Reachable" is False is refused, on both families.
 * IPv6 is refused outside 2000::/3 (the only global unicast block) unless it
 * embeds an IPv4 address (mapped, NAT64) that is itself public.
 */

export type NonPublicKind = 'loopback' | 'private' | 'link-local' | 'unique-local' | 'unspecified' | 'broadcast' | 'multicast' | 'documentation' | 'reserved';

type V4Range = [base: number, prefix: number, kind: NonPublicKind];

// Order matters: the first match names the kind (broadcast before reserved).
const V4_RANGES: V4Range[] = [
  [0x00000000, 8, 'unspecified'], // 0.0.0.0/8, "this network"
  [0x7f000000, 8, 'loopback'],
  [0x0a000000, 8, 'private'],
  [0xac100000, 12, 'private'],
  [0xc0a80000, 16, 'private'],
  [0x64400000, 10, 'private'], // 100.64.0.0/10, carrier-grade NAT (shared address space)
  [0xa9fe0000, 16, 'link-local'],
  // IETF protocol assignments; its two global /32s (PCP and TURN anycast) are refused too, for simplicity
  [0xc0000000, 24, 'reserved'],
  [0xc0000200, 24, 'documentation'], // 192.0.2.0/24 TEST-NET-1
  [0xc6336400, 24, 'documentation'], // 198.51.100.0/24 TEST-NET-2
  [0xcb007100, 24, 'documentation'], // 203.0.113.0/24 TEST-NET-3
  [0xc0586300, 24, 'reserved'], // 192.88.99.0/24, deprecated 6to4 relay anycast
  [0xc6120000, 15, 'reserved'], // 198.18.0.0/15 benchmarking
  [0xffffffff, 32, 'broadcast'],
  [0xe0000000, 4, 'multicast'],
  [0xf0000000, 4, 'reserved'], // 240.0.0.0/4
];

function inV4(ip: number, base: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (ip & mask) >>> 0 === base;
}

/** A canonical dotted quad (decimal, each part 0-255) as a 32-bit number; undefined otherwise. */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

export function classifyIPv4(ip: number): NonPublicKind | undefined {
  for (const [base, prefix, kind] of V4_RANGES) if (inV4(ip, base, prefix)) return kind;
  return undefined;
}

/** Eight 16-bit groups, or undefined when `text` (no brackets) is not an IPv6 literal. */
export function parseIPv6(text: string): number[] | undefined {
  let s = text.toLowerCase();
  if (s.includes('.')) {
    // a dotted-quad tail (URL never emits one, other callers might) becomes two hex groups
    const lastColon = s.lastIndexOf(':');
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (v4 === undefined || lastColon === -1) return undefined;
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const group = (g: string) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN);
  const head = halves[0] ? halves[0].split(':').map(group) : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':').map(group) : [];
  if ([...head, ...rest].some(Number.isNaN)) return undefined;
  const known = head.length + rest.length;
  if (halves.length === 1) return known === 8 ? head : undefined;
  if (known > 7) return undefined;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest];
}

function embeddedV4(g: number[]): number {
  return (g[6] * 0x10000 + g[7]) >>> 0;
}

/** 2001::/23 is IETF protocol assignments (Teredo 2001::/32 included); IANA marks these parts of it globally reachable. */
function globalIn2001Slash23(g: number[]): boolean {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (g[1] === 0x0001 && zeros(2, 7) && g[7] >= 1 && g[7] <= 3) return true; // 2001:1::1, ::2, ::3 anycast
  if (g[1] === 0x0003) return true; // 2001:3::/32 AMT
  if (g[1] === 0x0004 && g[2] === 0x0112) return true; // 2001:4:112::/48 AS112-v6
  return (g[1] & 0xfff0) === 0x0020 || (g[1] & 0xfff0) === 0x0030; // 2001:20::/28 ORCHIDv2, 2001:30::/28 drone DET
}

export function classifyIPv6(g: number[]): NonPublicKind | undefined {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && g[7] === 1) return 'loopback';
  // IPv4-mapped ::ffff:a.b.c.d reaches the IPv4 address itself
  if (zeros(0, 5) && g[5] === 0xffff) return classifyIPv4(embeddedV4(g));
  // IPv4-translated ::ffff:0:a.b.c.d and the deprecated IPv4-compatible ::a.b.c.d: named by the embedded address, never public
  if ((zeros(0, 4) && g[4] === 0xffff && g[5] === 0) || zeros(0, 6)) return classifyIPv4(embeddedV4(g)) ?? 'reserved';
  // NAT64 64:ff9b::/96 reaches the embedded IPv4 address; 64:ff9b:1::/48 is for local translation only
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyIPv4(embeddedV4(g));
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'reserved';
  // 6to4 2002:AABB:CCDD::/48 tunnels to IPv4 AABB:CCDD
  if (g[0] === 0x2002) return classifyIPv4((g[1] * 0x10000 + g[2]) >>> 0);
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation';
  if (g[0] === 0x2001 && g[1] < 0x0200 && !globalIn2001Slash23(g)) return 'reserved';
  if (g[0] === 0x3fff && (g[1] & 0xf000) === 0) return 'documentation'; // 3fff::/20
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x5f00) return 'reserved'; // 5f00::/16 SRv6 SIDs
  // 100::/64 discard-only, 100:0:0:1::/64 dummy prefix, and everything else outside global unicast 2000::/3
  if ((g[0] & 0xe000) !== 0x2000) return 'reserved';
  return undefined;
}

/**
 * The kind of non-public address `hostname` is, or undefined for a public IP
 * literal or any hostname. `hostname` is a WHATWG `URL.hostname`, or a bare
 * address as a resolver returns it (IPv6 with or without brackets).
 */
export function nonPublicKindOf(hostname: string): NonPublicKind | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    const groups = parseIPv6(hostname.slice(1, -1));
    return groups ? classifyIPv6(groups) : undefined;
  }
  if (hostname.includes(':')) {
    const groups = parseIPv6(hostname.replace(/%.*$/, '')); // a resolver may add a zone: fe80::1%eth0
    return groups ? classifyIPv6(groups) : undefined;
  }
  const v4 = parseIPv4(hostname);
  return v4 === undefined ? undefined : classifyIPv4(v4);
}
