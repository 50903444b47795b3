import type { KubeConfig } from '@kubernetes/client-node';
import type {
  ApiResourceInfo,
  ApplyOptions,
  CreateOptions,
  ClusterEvent,
  ClusterVersion,
  DescribeResult,
  DryRunResult,
  EventQuery,
  KubeObject,
  ListQuery,
  ListResult,
  LogQuery,
  PatchBody,
  PatchOptions,
  ResourceRef,
  ResourceSchema,
  WaitCondition,
  WaitOptions,
  WaitResult,
  WritePreconditions,
} from '../../domain/cluster/kube-types.js';
import * as v from '../../domain/cluster/kube-validation.js';
import { identityKey, type KubeIdentity } from '../../domain/auth/kube-identity.js';
import { conditionMet } from '../../domain/cluster/wait-condition.js';
import { ExecutionError, NotConfiguredError } from '../../domain/errors.js';
import type { ClusterClient, ClusterStatus, ImpersonatingClusterClients } from '../../domain/ports/cluster-client.js';
import { KubeStatusError, toDomainError } from './kube-errors.js';
import { KubeDiscovery } from './kube-discovery.js';
import { KubeObjects, refOf, type Written } from './kube-objects.js';
import { KubeOpenApi } from './kube-openapi.js';
import { KubeTransport, type KubeAgents } from './kube-transport.js';

export interface KubernetesClusterClientOptions {
  /** Per-request timeout, milliseconds. */
  requestTimeoutMs: number;
  /** Timeout of the `status()` probe; default 5000 ms. */
  statusTimeoutMs?: number;
  /** Bound on an ordinary response body; default 16 MiB. */
  maxResponseBytes?: number;
  /** Context name to report instead of the kubeconfig's (in-cluster: 'in-cluster'). */
  contextName?: string;
  /** Every request made as this identity (Impersonate-User / Impersonate-Group). */
  impersonate?: KubeIdentity;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Impersonated clients kept (each with its discovery cache); the least recently used goes first. */
const MAX_IDENTITIES = 64;

const NOT_CONFIGURED_HOW = 'set KUBECONFIG to a kubeconfig with a current-context, or run svc inside a cluster';

/** ClusterClient over the Kubernetes API, with credentials from a loaded KubeConfig; `actingAs` gives the same as a caller. */
export class KubernetesClusterClient implements ClusterClient, ImpersonatingClusterClients {
  private readonly transport: KubeTransport;
  private readonly discovery: KubeDiscovery;
  private readonly openapi: KubeOpenApi;
  private readonly objects: KubeObjects;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly acting = new Map<string, KubernetesClusterClient>();

  constructor(
    private readonly kc: KubeConfig,
    private readonly options: KubernetesClusterClientOptions,
    agents?: KubeAgents,
  ) {
    this.transport = new KubeTransport(
      kc,
      { timeoutMs: options.requestTimeoutMs, maxBytes: options.maxResponseBytes ?? 16 * 1024 * 1024, impersonate: options.impersonate },
      agents,
    );
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.discovery = new KubeDiscovery(this.transport, 300000, this.now);
    this.openapi = new KubeOpenApi(this.transport);
    this.objects = new KubeObjects(this.transport, this.discovery, () => this.defaultNamespace());
  }

  actingAs(identity: KubeIdentity): ClusterClient {
    // an impersonated client acts as one caller only: asking it for another is svc's own client's job
    if (this.options.impersonate) throw new Error('an impersonated cluster client cannot impersonate again');
    const key = identityKey(identity);
    let client = this.acting.get(key);
    if (client) this.acting.delete(key);
    else client = new KubernetesClusterClient(this.kc, { ...this.options, impersonate: identity }, this.transport.agents);
    this.acting.set(key, client);
    if (this.acting.size > MAX_IDENTITIES) this.acting.delete(this.acting.keys().next().value as string);
    return client;
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

  async resolveKind(apiVersion: string, kind: string): Promise<ApiResourceInfo | null> {
    v.validateApiVersion(apiVersion);
    v.validateKind(kind);
    return this.call(`discover ${kind} ${apiVersion}`, async () => {
      try {
        return await this.discovery.resolve(apiVersion, kind);
      } catch (e) {
        if (e instanceof ExecutionError) return null;
        throw e;
      }
    });
  }

  async getResourceSchema(apiVersion: string, kind: string): Promise<ResourceSchema | null> {
    v.validateApiVersion(apiVersion);
    v.validateKind(kind);
    return this.call(`get OpenAPI schema of ${kind} ${apiVersion}`, () => this.openapi.schema(apiVersion, kind));
  }

  async list(query: ListQuery): Promise<ListResult> {
    v.validateListQuery(query);
    return this.call(`list ${query.kind}${query.namespace ? ` in ${query.namespace}` : ''}`, () => this.objects.list(query));
  }

  async get(ref: ResourceRef): Promise<KubeObject | null> {
    v.validateRef(ref);
    return this.call(`get ${describeRef(ref)}`, () => this.objects.read(ref));
  }

  async describe(ref: ResourceRef): Promise<DescribeResult | null> {
    v.validateRef(ref);
    return this.call(`describe ${describeRef(ref)}`, async () => {
      const object = await this.objects.read(ref);
      if (!object) return null;
      const events = await this.objects.events({ namespace: object.metadata.namespace, involvedObject: { kind: ref.kind, name: ref.name } });
      return { object, events };
    });
  }

  async events(query: EventQuery): Promise<ClusterEvent[]> {
    v.validateEventQuery(query);
    return this.call(`list events${query.namespace ? ` in ${query.namespace}` : ''}`, () => this.objects.events(query));
  }

  async logs(query: LogQuery): Promise<string> {
    v.validateLogQuery(query);
    const limitBytes = query.limitBytes ?? v.MAX_LOG_BYTES;
    return this.call(`read logs of pod ${query.namespace}/${query.pod}`, () => this.objects.logs(query, limitBytes));
  }

  async dryRunApply(manifest: KubeObject, options: ApplyOptions = {}): Promise<DryRunResult> {
    v.validateManifest(manifest);
    v.validateFieldManager(options.fieldManager);
    return this.call(`dry-run apply ${describeRef(refOf(manifest))}`, () => this.verdict(() => this.objects.apply(manifest, options, true)));
  }

  async dryRunCreate(manifest: KubeObject, options: CreateOptions = {}): Promise<DryRunResult> {
    v.validateManifest(manifest);
    v.validateFieldManager(options.fieldManager);
    return this.call(`dry-run create ${describeRef(refOf(manifest))}`, () => this.verdict(() => this.objects.create(manifest, options, true)));
  }

  async create(manifest: KubeObject, options: CreateOptions = {}): Promise<KubeObject> {
    v.validateManifest(manifest);
    v.validateFieldManager(options.fieldManager);
    return this.call(`create ${describeRef(refOf(manifest))}`, async () => handBack(await this.objects.create(manifest, options, false), options));
  }

  async dryRunPatch(ref: ResourceRef, patch: PatchBody, options: PatchOptions = {}): Promise<DryRunResult> {
    v.validateRef(ref);
    v.validatePatch(patch);
    return this.call(`dry-run patch ${describeRef(ref)}`, () => this.verdict(() => this.objects.patch(ref, patch, options, true)));
  }

  async patch(ref: ResourceRef, patch: PatchBody, options: PatchOptions = {}): Promise<KubeObject> {
    v.validateRef(ref);
    v.validatePatch(patch);
    return this.call(`patch ${describeRef(ref)}`, async () => handBack(await this.objects.patch(ref, patch, options, false), options));
  }

  async dryRunDelete(ref: ResourceRef, options: WritePreconditions = {}): Promise<DryRunResult> {
    v.validateRef(ref);
    return this.call(`dry-run delete ${describeRef(ref)}`, () =>
      this.verdict(async () => ({ object: await this.objects.dryRunDelete(ref, options), warnings: [] })),
    );
  }

  async apply(manifest: KubeObject, options: ApplyOptions = {}): Promise<KubeObject> {
    v.validateManifest(manifest);
    v.validateFieldManager(options.fieldManager);
    return this.call(`apply ${describeRef(refOf(manifest))}`, async () => handBack(await this.objects.apply(manifest, options, false), options));
  }

  async delete(ref: ResourceRef, options: WritePreconditions = {}): Promise<boolean> {
    v.validateRef(ref);
    return this.call(`delete ${describeRef(ref)}`, () => this.objects.delete(ref, options));
  }

  async waitFor(ref: ResourceRef, condition: WaitCondition, options: WaitOptions): Promise<WaitResult> {
    v.validateRef(ref);
    v.validateWaitCondition(condition);
    v.validateWaitOptions(options);
    const interval = options.intervalMs ?? 2000;
    const start = this.now();
    return this.call(`wait for ${describeRef(ref)}`, async () => {
      for (;;) {
        const object = await this.objects.read(ref);
        const elapsedMs = this.now() - start;
        const seen = object ? { object } : {};
        if (conditionMet(object, condition)) return { met: true, elapsedMs, ...seen };
        if (elapsedMs >= options.timeoutMs) return { met: false, elapsedMs, ...seen };
        await this.sleep(Math.min(interval, options.timeoutMs - elapsedMs));
      }
    });
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
      throw toDomainError(e, op, this.context(), this.options.impersonate !== undefined);
    }
  }

  /**
   * The server's verdict on a dry run: a rejection is data for the caller; 401, 429 and 5xx stay failures,
   * and so does a 403 to an impersonated caller (the caller may not, whatever the change).
   */
  private async verdict(run: () => Promise<Written>): Promise<DryRunResult> {
    try {
      const { object, warnings } = await run();
      return { accepted: true, object, ...(warnings.length ? { warnings } : {}) };
    } catch (e) {
      if (e instanceof KubeStatusError && e.code === 403 && this.options.impersonate) throw e;
      if (e instanceof KubeStatusError && [400, 403, 404, 409, 422].includes(e.code)) {
        return { accepted: false, reason: e.status.reason, message: e.status.message, causes: e.status.causes };
      }
      throw e;
    }
  }
}

function describeRef(ref: ResourceRef): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

/** The stored object of a persisted write; its Warning headers go to the caller's `warnings`, when it gave one. */
function handBack(written: Written, options: { warnings?: string[] }): KubeObject {
  options.warnings?.push(...written.warnings);
  return written.object;
}
