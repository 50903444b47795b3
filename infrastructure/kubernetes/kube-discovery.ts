import type { ApiResourceInfo } from '../../domain/cluster/kube-types.js';
import { ExecutionError } from '../../domain/errors.js';
import { ConcurrencyLimit } from '../../application/prompts/concurrency-limit.js';
import type { KubeTransport } from './kube-transport.js';

interface APIResourceList {
  groupVersion?: string;
  resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[]; shortNames?: string[] }[];
}
interface APIGroupList {
  groups?: { name: string; versions?: { groupVersion: string }[]; preferredVersion?: { groupVersion: string } }[];
}

const CONCURRENCY = 8;
/** Entries kept; a cluster rarely serves more group versions than this. */
const MAX_CACHED = 512;

export function apiPathPrefix(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/**
 * API discovery with a short-lived cache per group version, so resolving
 * Deployment -> deployments does not cost a request per call. A kind missing
 * from a cached list triggers one refresh: a CRD may have been installed since.
 */
export class KubeDiscovery {
  private readonly cache = new Map<string, { at: number; resources: ApiResourceInfo[] }>();

  constructor(
    private readonly transport: KubeTransport,
    private readonly ttlMs = 300000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Every group version served, preferred version of each group first. */
  async groupVersions(): Promise<string[]> {
    const [core, groups] = await Promise.all([
      this.transport.json<{ versions?: string[] }>({ method: 'GET', path: '/api' }),
      this.transport.json<APIGroupList>({ method: 'GET', path: '/apis' }),
    ]);
    const out = [...(core.versions ?? [])];
    for (const g of groups.groups ?? []) {
      const preferred = g.preferredVersion?.groupVersion;
      if (preferred) out.push(preferred);
      for (const v of g.versions ?? []) if (v.groupVersion !== preferred) out.push(v.groupVersion);
    }
    return out;
  }

  /** Kinds of one group version (subresources left out); fresh from the server when `refresh`. */
  async resources(apiVersion: string, refresh = false): Promise<ApiResourceInfo[]> {
    const hit = this.cache.get(apiVersion);
    if (!refresh && hit && this.now() - hit.at < this.ttlMs) return hit.resources;
    const list = await this.transport.json<APIResourceList>({ method: 'GET', path: apiPathPrefix(apiVersion) });
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const resources = (list.resources ?? [])
      .filter((r) => !r.name.includes('/'))
      .map((r) => ({
        group,
        version,
        apiVersion,
        kind: r.kind,
        resource: r.name,
        namespaced: r.namespaced,
        verbs: r.verbs ?? [],
        shortNames: r.shortNames ?? [],
      }));
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(apiVersion, { at: this.now(), resources });
    return resources;
  }

  /** The resource serving `kind` under `apiVersion`; ExecutionError when the cluster does not serve it. */
  async resolve(apiVersion: string, kind: string): Promise<ApiResourceInfo> {
    const find = (list: ApiResourceInfo[]) => list.find((r) => r.kind === kind);
    const hit = this.cache.get(apiVersion);
    const fromCache = hit !== undefined && this.now() - hit.at < this.ttlMs;
    let found: ApiResourceInfo | undefined;
    try {
      found = find(await this.resources(apiVersion));
      if (!found && fromCache) found = find(await this.resources(apiVersion, true));
    } catch (e) {
      if ((e as { code?: number }).code !== 404) throw e;
    }
    if (!found) throw new ExecutionError(`The cluster does not serve kind ${kind} in apiVersion ${apiVersion}`);
    return found;
  }

  /** All kinds of all group versions; a failing group is skipped unless all fail. */
  async all(): Promise<ApiResourceInfo[]> {
    const versions = await this.groupVersions();
    const limit = new ConcurrencyLimit(CONCURRENCY);
    const results = await Promise.all(versions.map((v) => limit.run(() => this.resources(v).catch((e: Error) => e))));
    const ok = results.filter((r): r is ApiResourceInfo[] => !(r instanceof Error));
    // the caller maps the first failure to a domain error
    if (ok.length === 0 && results.length > 0) throw results[0];
    return ok.flat();
  }
}
