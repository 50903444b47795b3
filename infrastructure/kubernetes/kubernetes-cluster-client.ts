import type { KubeConfig } from '@kubernetes/client-node';
import type {
  ApiResourceInfo, ApplyOptions, ClusterEvent, ClusterVersion, DescribeResult, DryRunResult, EventQuery, KubeObject,
  ListQuery, ListResult, LogQuery, ResourceRef, ResourceSchema, WaitCondition, WaitOptions, WaitResult,
} from '../../domain/cluster/kube-types.js';
import * as v from '../../domain/cluster/kube-validation.js';
import { conditionMet } from '../../domain/cluster/wait-condition.js';
import { NotConfiguredError } from '../../domain/errors.js';
import type { ClusterClient, ClusterStatus } from '../../domain/ports/cluster-client.js';
import { KubeStatusError, toDomainError } from './kube-errors.js';
import { apiPathPrefix, KubeDiscovery } from './kube-discovery.js';
import { byTime, viewEvent, viewObject } from './kube-object-view.js';
import { KubeOpenApi } from './kube-openapi.js';
import { KubeTransport } from './kube-transport.js';

export interface KubernetesClusterClientOptions {
  /** Per-request timeout, milliseconds. */
  requestTimeoutMs: number;
  /** Timeout of the `status()` probe; default 5000 ms. */
  statusTimeoutMs?: number;
  /** Bound on an ordinary response body; default 16 MiB. */
  maxResponseBytes?: number;
  /** Context name to report instead of the kubeconfig's (in-cluster: 'in-cluster'). */
  contextName?: string;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const DEFAULT_FIELD_MANAGER = 'svc';
const APPLY_PATCH = 'application/apply-patch+yaml';
const NOT_CONFIGURED_HOW = 'set KUBECONFIG to a kubeconfig with a current-context, or run svc inside a cluster';

/** ClusterClient over the Kubernetes API, with credentials from a loaded KubeConfig. */
export class KubernetesClusterClient implements ClusterClient {
  private readonly transport: KubeTransport;
  private readonly discovery: KubeDiscovery;
  private readonly openapi: KubeOpenApi;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(
    private readonly kc: KubeConfig,
    private readonly options: KubernetesClusterClientOptions,
  ) {
    this.transport = new KubeTransport(kc, { timeoutMs: options.requestTimeoutMs, maxBytes: options.maxResponseBytes ?? 16 * 1024 * 1024 });
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.discovery = new KubeDiscovery(this.transport, 300000, this.now);
    this.openapi = new KubeOpenApi(this.transport);
  }

  context(): string {
    return this.options.contextName ?? this.kc.getCurrentContext() ?? '';
  }

  async status(): Promise<ClusterStatus> {
    const context = this.context();
    const problem = this.configProblem();
    if (problem) return { connected: false, context, error: `${problem}: ${NOT_CONFIGURED_HOW}` };
    try {
      const info = await this.call('GET /version', () =>
        this.transport.json<{ gitVersion?: string }>({ method: 'GET', path: '/version', timeoutMs: this.options.statusTimeoutMs ?? 5000 }),
      );
      return { connected: true, context, ...(info.gitVersion ? { serverVersion: info.gitVersion } : {}) };
    } catch (e) {
      return { connected: false, context, error: (e as Error).message };
    }
  }

  async version(): Promise<ClusterVersion> {
    const info = await this.call('GET /version', () => this.transport.json<Partial<ClusterVersion>>({ method: 'GET', path: '/version' }));
    return { gitVersion: info.gitVersion ?? '', major: info.major ?? '', minor: info.minor ?? '', platform: info.platform ?? '' };
  }

  async listApiResources(): Promise<ApiResourceInfo[]> {
    return this.call('API discovery', () => this.discovery.all());
  }

  async getResourceSchema(apiVersion: string, kind: string): Promise<ResourceSchema | null> {
    v.validateApiVersion(apiVersion);
    v.validateKind(kind);
    return this.call(`get OpenAPI schema of ${kind} ${apiVersion}`, () => this.openapi.schema(apiVersion, kind));
  }

  async list(query: ListQuery): Promise<ListResult> {
    v.validateListQuery(query);
    return this.call(`list ${query.kind}${query.namespace ? ` in ${query.namespace}` : ''}`, async () => {
      const info = await this.discovery.resolve(query.apiVersion, query.kind);
      const ns = info.namespaced && query.namespace ? `/namespaces/${enc(query.namespace)}` : '';
      const res = await this.transport.json<{ items?: unknown[]; metadata?: { continue?: string } }>({
        method: 'GET',
        path: `${apiPathPrefix(info.apiVersion)}${ns}/${info.resource}`,
        query: { labelSelector: query.labelSelector, fieldSelector: query.fieldSelector, limit: query.limit ?? 100, continue: query.continueToken },
      });
      // list items carry no apiVersion/kind of their own
      const items = (res.items ?? []).map((i) => viewObject({ apiVersion: info.apiVersion, kind: info.kind, ...(i as object) }));
      return { items, ...(res.metadata?.continue ? { continueToken: res.metadata.continue } : {}) };
    });
  }

  async get(ref: ResourceRef): Promise<KubeObject | null> {
    v.validateRef(ref);
    return this.call(`get ${describeRef(ref)}`, () => this.read(ref));
  }

  async describe(ref: ResourceRef): Promise<DescribeResult | null> {
    v.validateRef(ref);
    return this.call(`describe ${describeRef(ref)}`, async () => {
      const object = await this.read(ref);
      if (!object) return null;
      const events = await this.readEvents({ namespace: object.metadata.namespace, involvedObject: { kind: ref.kind, name: ref.name } });
      return { object, events };
    });
  }

  async events(query: EventQuery): Promise<ClusterEvent[]> {
    v.validateEventQuery(query);
    return this.call(`list events${query.namespace ? ` in ${query.namespace}` : ''}`, () => this.readEvents(query));
  }

  async logs(query: LogQuery): Promise<string> {
    v.validateLogQuery(query);
    const limitBytes = query.limitBytes ?? v.MAX_LOG_BYTES;
    const op = `read logs of pod ${query.namespace}/${query.pod}`;
    return this.call(op, async () => {
      try {
        return await this.transport.text(
          {
            method: 'GET',
            path: `/api/v1/namespaces/${enc(query.namespace)}/pods/${enc(query.pod)}/log`,
            query: { container: query.container, tailLines: query.tailLines, sinceSeconds: query.sinceSeconds, previous: query.previous || undefined, limitBytes },
            // the server honours limitBytes; the margin only guards against one that does not
            maxBytes: limitBytes + 65536,
          },
          'text/plain',
        );
      } catch (e) {
        if (e instanceof KubeStatusError && e.code === 404) {
          throw toDomainError(new KubeStatusError(404, { ...e.status, message: `pod ${query.namespace}/${query.pod} not found (${e.status.message})` }), op, this.context());
        }
        throw e;
      }
    });
  }

  async dryRunApply(manifest: KubeObject, options: ApplyOptions = {}): Promise<DryRunResult> {
    v.validateManifest(manifest);
    v.validateFieldManager(options.fieldManager);
    return this.call(`dry-run apply ${describeRef(refOf(manifest))}`, async () => {
      try {
        return { accepted: true, object: await this.serverSideApply(manifest, options, true) };
      } catch (e) {
        // a verdict on the manifest, for the caller to act on; 401, 429 and 5xx stay failures
        if (e instanceof KubeStatusError && [400, 403, 404, 409, 422].includes(e.code)) {
          return { accepted: false, reason: e.status.reason, message: e.status.message, causes: e.status.causes };
        }
        throw e;
      }
    });
  }

  async apply(manifest: KubeObject, options: ApplyOptions = {}): Promise<KubeObject> {
    v.validateManifest(manifest);
    v.validateFieldManager(options.fieldManager);
    return this.call(`apply ${describeRef(refOf(manifest))}`, () => this.serverSideApply(manifest, options, false));
  }

  async delete(ref: ResourceRef): Promise<boolean> {
    v.validateRef(ref);
    return this.call(`delete ${describeRef(ref)}`, async () => {
      try {
        await this.transport.json({ method: 'DELETE', path: await this.objectPath(ref), query: { propagationPolicy: 'Background' } });
        return true;
      } catch (e) {
        if (e instanceof KubeStatusError && e.code === 404) return false;
        throw e;
      }
    });
  }

  async waitFor(ref: ResourceRef, condition: WaitCondition, options: WaitOptions): Promise<WaitResult> {
    v.validateRef(ref);
    v.validateWaitCondition(condition);
    v.validateWaitOptions(options);
    const interval = options.intervalMs ?? 2000;
    const start = this.now();
    return this.call(`wait for ${describeRef(ref)}`, async () => {
      for (;;) {
        const object = await this.read(ref);
        const elapsedMs = this.now() - start;
        const seen = object ? { object } : {};
        if (conditionMet(object, condition)) return { met: true, elapsedMs, ...seen };
        if (elapsedMs >= options.timeoutMs) return { met: false, elapsedMs, ...seen };
        await this.sleep(Math.min(interval, options.timeoutMs - elapsedMs));
      }
    });
  }

  private async read(ref: ResourceRef): Promise<KubeObject | null> {
    try {
      return viewObject(await this.transport.json({ method: 'GET', path: await this.objectPath(ref) }));
    } catch (e) {
      if (e instanceof KubeStatusError && e.code === 404) return null;
      throw e;
    }
  }

  private async readEvents(query: EventQuery): Promise<ClusterEvent[]> {
    const selector = query.involvedObject
      ? `involvedObject.kind=${query.involvedObject.kind},involvedObject.name=${query.involvedObject.name}`
      : undefined;
    const res = await this.transport.json<{ items?: unknown[] }>({
      method: 'GET',
      path: query.namespace ? `/api/v1/namespaces/${enc(query.namespace)}/events` : '/api/v1/events',
      query: { fieldSelector: selector, limit: query.limit ?? 100 },
    });
    return (res.items ?? []).map((e) => viewEvent(e as Parameters<typeof viewEvent>[0])).sort(byTime);
  }

  private async serverSideApply(manifest: KubeObject, options: ApplyOptions, dryRun: boolean): Promise<KubeObject> {
    const result = await this.transport.json({
      method: 'PATCH',
      path: await this.objectPath(refOf(manifest)),
      query: { fieldManager: options.fieldManager ?? DEFAULT_FIELD_MANAGER, force: options.force || undefined, dryRun: dryRun ? 'All' : undefined },
      // JSON is YAML, so the apply-patch content type takes the manifest as is
      body: manifest,
      contentType: APPLY_PATCH,
    });
    return viewObject(result);
  }

  private async objectPath(ref: ResourceRef): Promise<string> {
    const info = await this.discovery.resolve(ref.apiVersion, ref.kind);
    const ns = info.namespaced ? `/namespaces/${enc(ref.namespace ?? this.defaultNamespace())}` : '';
    return `${apiPathPrefix(info.apiVersion)}${ns}/${info.resource}/${enc(ref.name)}`;
  }

  private defaultNamespace(): string {
    return this.kc.getContextObject(this.kc.getCurrentContext())?.namespace || 'default';
  }

  /** Why the loaded kubeconfig cannot reach a cluster, or undefined when it can. */
  private configProblem(): string | undefined {
    if (!this.kc.getCurrentContext()) return 'the kubeconfig has no current-context';
    if (!this.kc.getCurrentCluster()?.server) return `context "${this.context()}" names no cluster with a server`;
    return undefined;
  }

  private async call<T>(op: string, fn: () => Promise<T>): Promise<T> {
    const problem = this.configProblem();
    if (problem) throw new NotConfiguredError('The Kubernetes cluster', `${problem}; ${NOT_CONFIGURED_HOW}`);
    try {
      return await fn();
    } catch (e) {
      throw toDomainError(e, op, this.context());
    }
  }
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

function refOf(m: KubeObject): ResourceRef {
  return { apiVersion: m.apiVersion, kind: m.kind, name: m.metadata.name, namespace: m.metadata.namespace };
}

function describeRef(ref: ResourceRef): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}
