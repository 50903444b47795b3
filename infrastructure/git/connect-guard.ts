import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { nonPublicKindOf } from '../../domain/prompts/ip-literal.js';
import { GitTransportError } from './git-transport-error.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to, in the resolver's order. Tests inject one; no real DNS there. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export interface ConnectGuardOptions {
  /** Check destinations (a per-request repo). Off for the configured repo, which is exempt. */
  enabled: boolean;
  /** Host names (lower-case, no trailing dot) a guarded clone may still reach whatever they resolve to: SVC_REPO_INTERNAL_HOSTS. */
  internalHosts: readonly string[];
  resolve: HostResolver;
}

const NOT_PUBLIC = 'not a public destination this server may fetch prompts from';

/** A lookup that answers with the addresses already checked, so the connection cannot go anywhere else (no second DNS query). */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : [...addresses];
    if (usable.length === 0) {
      const err: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      callback(err, '', 0);
    } else if (options.all) {
      callback(
        null,
        usable.map((a) => ({ address: a.address, family: a.family })),
      );
    } else {
      callback(null, usable[0].address, usable[0].family);
    }
  };
}

/**
 * The connect-time half of the per-request repo rules. Validation (SPEC.md)
 * refuses non-public IP literals but never resolves a name; here, just before
 * each request of a guarded clone (redirect targets included), the host is
 * resolved, every address is checked, and the request is pinned to the checked
 * addresses through the `lookup` option of http(s).request.
 */
export class ConnectGuard {
  private readonly internal: Set<string>;

  constructor(private readonly options: ConnectGuardOptions) {
    this.internal = new Set(options.internalHosts.map((h) => h.toLowerCase().replace(/\.+$/, '')));
  }

  /**
   * Undefined when the request may use the system's own lookup (guard off, or
   * an IP literal that passed); otherwise the checked addresses to pin.
   * Throws GitTransportError saying why a destination is refused.
   */
  async addressesFor(url: URL, viaRedirect: boolean): Promise<ResolvedAddress[] | undefined> {
    if (!this.options.enabled) return undefined;
    const host = url.hostname;
    const how = viaRedirect ? ' (reached through a redirect)' : '';
    if (host.startsWith('[') || net.isIPv4(host)) {
      const kind = nonPublicKindOf(host);
      if (kind) throw new GitTransportError(`refused to connect to ${host}${how}: it is a ${kind} address, ${NOT_PUBLIC}`);
      return undefined;
    }
    const name = host.toLowerCase().replace(/\.+$/, '');
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.options.resolve(name);
    } catch (e) {
      throw new GitTransportError(`could not resolve ${host}${how}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (addresses.length === 0) throw new GitTransportError(`could not resolve ${host}${how}: no addresses`);
    if (this.internal.has(name)) return addresses;
    for (const { address } of addresses) {
      // the address itself is not echoed: the answer would map the server's internal DNS for a stranger
      const kind = net.isIP(address.replace(/%.*$/, '')) ? nonPublicKindOf(address) : 'reserved';
      if (kind) {
        throw new GitTransportError(
          `refused to connect to ${host}${how}: the name resolves to a ${kind} address, ${NOT_PUBLIC} ` +
            `(an operator can list internal git hosts in SVC_REPO_INTERNAL_HOSTS)`,
        );
      }
    }
    return addresses;
  }
}
