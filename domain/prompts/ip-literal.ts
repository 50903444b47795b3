/**
 * Classifies IP literals as they come out of WHATWG URL parsing (`URL.hostname`),
 * which already folds decimal, hex, octal, shorthand and trailing-dot IPv4
 * spellings into dotted quads and IPv6 into compressed hex in brackets. Pure
 * string work: a hostname is never resolved.
 */

export type NonPublicKind =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'unspecified'
  | 'broadcast'
  | 'multicast'
  | 'reserved';

type V4Range = [base: number, prefix: number, kind: NonPublicKind];

// Order matters: the first match names the kind (broadcast before reserved).
const V4_RANGES: V4Range[] = [
  [0x00000000, 8, 'unspecified'], // 0.0.0.0/8, "this network"
  [0x7f000000, 8, 'loopback'],
  [0x0a000000, 8, 'private'],
  [0xac100000, 12, 'private'],
  [0xc0a80000, 16, 'private'],
  [0x64400000, 10, 'private'], // 100.64.0.0/10, carrier-grade NAT
  [0xa9fe0000, 16, 'link-local'],
  [0xc0000000, 24, 'reserved'], // IETF protocol assignments
  [0xc6120000, 15, 'reserved'], // benchmarking
  [0xffffffff, 32, 'broadcast'],
  [0xe0000000, 4, 'multicast'],
  [0xf0000000, 4, 'reserved'],
];

function inV4(ip: number, base: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return ((ip & mask) >>> 0) === base;
}

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

export function classifyIPv6(g: number[]): NonPublicKind | undefined {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && g[7] === 1) return 'loopback';
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d, IPv4-compatible ::a.b.c.d
  if (zeros(0, 5) && g[5] === 0xffff) return classifyIPv4(embeddedV4(g));
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return classifyIPv4(embeddedV4(g));
  if (zeros(0, 6)) return classifyIPv4(embeddedV4(g));
  // NAT64 64:ff9b::/96 reaches the embedded IPv4 address
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyIPv4(embeddedV4(g));
  // 6to4 2002:AABB:CCDD::/48 tunnels to IPv4 AABB:CCDD
  if (g[0] === 0x2002) return classifyIPv4((g[1] * 0x10000 + g[2]) >>> 0);
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  return undefined;
}

/**
 * The kind of non-public address `hostname` is, or undefined for a public IP
 * literal or any hostname. `hostname` is a WHATWG `URL.hostname`.
 */
export function nonPublicKindOf(hostname: string): NonPublicKind | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    const groups = parseIPv6(hostname.slice(1, -1));
    return groups ? classifyIPv6(groups) : undefined;
  }
  const v4 = parseIPv4(hostname);
  return v4 === undefined ? undefined : classifyIPv4(v4);
}
