import { randomUUID } from 'node:crypto';
import type {
  ApiResourceInfo,
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
import { patchTypeFor } from '../../domain/cluster/patch-type.js';
import { conditionMet } from '../../domain/cluster/wait-condition.js';
import { ExecutionError } from '../../domain/errors.js';
import type { ClusterClient } from '../../domain/ports/cluster-client.js';
import type { ClusterStatus } from '../../domain/ports/cluster-reader.js';
import { applyJsonPatch, applyStrategicMergePatch } from '../../lab/sandbox/kube/kube-patches.js';

type Verdict = Extract<DryRunResult, { accepted: false }>;

/** RFC 7386 merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** The patch applied as the API server reads its type (strategic merge for built-in kinds unless told otherwise). */
function patched(existing: KubeObject, ref: ResourceRef, patch: PatchBody, options: PatchOptions): KubeObject | string {
  const type = options.patchType ?? patchTypeFor(ref.apiVersion, patch);
  if (Array.isArray(patch)) {
    const out = applyJsonPatch(copy(existing) as never, patch);
    return 'error' in out ? out.error : (out.result as KubeObject);
  }
  return (type === 'strategic' ? applyStrategicMergePatch(copy(existing), patch) : mergePatch(copy(existing), patch)) as KubeObject;
}

const conflict = (ref: ResourceRef, existing: KubeObject | undefined, options: WritePreconditions): Verdict | undefined =>
  options.resourceVersion !== undefined && existing && options.resourceVersion !== existing.metadata.resourceVersion
    ? { accepted: false, reason: 'Conflict', message: `Operation cannot be fulfilled on ${ref.kind} "${ref.name}": the object has been modified`, causes: [] }
    : undefined;

const info = (apiVersion: string, kind: string, resource: string, namespaced = true): ApiResourceInfo => {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return { group, version, apiVersion, kind, resource, namespaced, verbs: ['get', 'list', 'patch', 'delete'], shortNames: [] };
};

/** What discovery answers when a test set no `resources`: the common built-in kinds with their scope, and the Widget custom resource of the tests. */
export const BUILT_IN_KINDS: readonly ApiResourceInfo[] = [
  ...['Pod', 'Service', 'ConfigMap', 'Secret', 'ServiceAccount', 'PersistentVolumeClaim', 'Event', 'Endpoints'].map((k) =>
    info('v1', k, `${k.toLowerCase()}s`),
  ),
  ...['Namespace', 'Node', 'PersistentVolume'].map((k) => info('v1', k, `${k.toLowerCase()}s`, false)),
  ...['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'].map((k) => info('apps/v1', k, `${k.toLowerCase()}s`)),
  info('batch/v1', 'Job', 'jobs'),
  info('batch/v1', 'CronJob', 'cronjobs'),
  info('networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies'),
  info('networking.k8s.io/v1', 'Ingress', 'ingresses'),
  info('autoscaling/v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers'),
  info('policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets'),
  info('rbac.authorization.k8s.io/v1', 'Role', 'roles'),
  info('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings'),
  info('rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false),
  info('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
  info('scheduling.k8s.io/v1', 'PriorityClass', 'priorityclasses', false),
  info('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'customresourcedefinitions', false),
  info('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false),
  info('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false),
  info('example.com/v1', 'Widget', 'widgets'),
];

const keyOf = (r: { apiVersion: string; kind: string; name: string; namespace?: string }) => `${r.apiVersion}/${r.kind}/${r.namespace ?? 'default'}/${r.name}`;
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/**
 * An in-memory cluster that `implements ClusterClient` (both ports), for unit
 * tests of use cases. Objects live in a map; `calls` records every method
 * called (names only, in order), `writes` the mutating ones that persisted.
 * `rejectDryRun` decides a dry run's verdict; `onApply` lets a test simulate
 * a controller (e.g. mark a Deployment available).
 */
export class FakeCluster implements ClusterClient {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: string[] = [];
  readonly writes: { method: 'apply' | 'create' | 'patch' | 'delete'; ref: ResourceRef; body?: unknown }[] = [];
  readonly logTexts = new Map<string, string>();
  clusterEvents: ClusterEvent[] = [];
  resources: ApiResourceInfo[] = [];
  schemas = new Map<string, ResourceSchema>();
  rejectDryRun?: (what: { method: 'apply' | 'create' | 'patch' | 'delete'; ref: ResourceRef; body?: unknown }) => Verdict | undefined;
  onWrite?: (object: KubeObject) => KubeObject;

  put(...objects: KubeObject[]): this {
    for (const o of objects) this.objects.set(keyOf({ ...o.metadata, apiVersion: o.apiVersion, kind: o.kind }), copy(o));
    return this;
  }

  async status(): Promise<ClusterStatus> {
    this.calls.push('status');
    return { connected: true, context: 'fake', serverVersion: 'v1.31.0' };
  }
  context(): string {
    return 'fake';
  }
  async version(): Promise<ClusterVersion> {
    this.calls.push('version');
    return { gitVersion: 'v1.31.0', major: '1', minor: '31', platform: 'linux/amd64' };
  }
  async listApiResources(): Promise<ApiResourceInfo[]> {
    this.calls.push('listApiResources');
    return copy(this.resources);
  }
  /** From `resources` when the test set them, else the built-in kinds a real API server serves (BUILT_IN_KINDS); not recorded in `calls`. */
  async resolveKind(apiVersion: string, kind: string): Promise<ApiResourceInfo | null> {
    const served = this.resources.length ? this.resources : BUILT_IN_KINDS;
    return copy(served.find((r) => r.apiVersion === apiVersion && r.kind === kind) ?? null);
  }
  async getResourceSchema(apiVersion: string, kind: string): Promise<ResourceSchema | null> {
    this.calls.push('getResourceSchema');
    return copy(this.schemas.get(`${apiVersion}/${kind}`) ?? null);
  }
  async list(q: ListQuery): Promise<ListResult> {
    this.calls.push('list');
    const wanted = (q.labelSelector ?? '')
      .split(',')
      .filter(Boolean)
      .map((s) => s.split('='));
    const items = [...this.objects.values()].filter(
      (o) =>
        o.apiVersion === q.apiVersion &&
        o.kind === q.kind &&
        (!q.namespace || (o.metadata.namespace ?? 'default') === q.namespace) &&
        wanted.every(([k, v]) => o.metadata.labels?.[k] === v),
    );
    return { items: copy(items.slice(0, q.limit ?? 100)) };
  }
  async get(ref: ResourceRef): Promise<KubeObject | null> {
    this.calls.push('get');
    return copy(this.objects.get(keyOf(ref)) ?? null);
  }
  async describe(ref: ResourceRef): Promise<DescribeResult | null> {
    this.calls.push('describe');
    const object = this.objects.get(keyOf(ref));
    if (!object) return null;
    return { object: copy(object), events: this.clusterEvents.filter((e) => e.involvedObject.kind === ref.kind && e.involvedObject.name === ref.name) };
  }
  async events(q: EventQuery): Promise<ClusterEvent[]> {
    this.calls.push('events');
    return this.clusterEvents.filter(
      (e) => (!q.namespace || e.involvedObject.namespace === q.namespace) && (!q.involvedObject || e.involvedObject.name === q.involvedObject.name),
    );
  }
  async logs(q: LogQuery): Promise<string> {
    this.calls.push('logs');
    const text = this.logTexts.get(`${q.namespace}/${q.pod}${q.previous ? '/previous' : ''}`);
    if (text === undefined) throw new ExecutionError(`pod ${q.namespace}/${q.pod} not found`);
    return text;
  }
  async dryRunApply(manifest: KubeObject, options: WritePreconditions = {}): Promise<DryRunResult> {
    this.calls.push('dryRunApply');
    const ref = { ...manifest.metadata, apiVersion: manifest.apiVersion, kind: manifest.kind };
    return (
      conflict(ref, this.objects.get(keyOf(ref)), options) ??
      this.rejectDryRun?.({ method: 'apply', ref, body: manifest }) ?? { accepted: true, object: copy(manifest) }
    );
  }
  async apply(manifest: KubeObject): Promise<KubeObject> {
    this.calls.push('apply');
    const ref = { ...manifest.metadata, apiVersion: manifest.apiVersion, kind: manifest.kind };
    const existing = this.objects.get(keyOf(ref));
    const stored = this.store({
      ...copy(manifest),
      metadata: { uid: existing?.metadata.uid ?? randomUUID(), ...copy(manifest.metadata) },
      ...(existing?.status ? { status: existing.status } : {}),
    });
    this.writes.push({ method: 'apply', ref, body: manifest });
    return stored;
  }
  /** A create: 409 AlreadyExists (as the API server) when an object of that name is stored. */
  async dryRunCreate(manifest: KubeObject): Promise<DryRunResult> {
    this.calls.push('dryRunCreate');
    const ref = { ...manifest.metadata, apiVersion: manifest.apiVersion, kind: manifest.kind };
    if (this.objects.has(keyOf(ref))) return { accepted: false, reason: 'AlreadyExists', message: `${ref.kind} "${ref.name}" already exists`, causes: [] };
    return this.rejectDryRun?.({ method: 'create', ref, body: manifest }) ?? { accepted: true, object: copy(manifest) };
  }
  async create(manifest: KubeObject): Promise<KubeObject> {
    this.calls.push('create');
    const ref = { ...manifest.metadata, apiVersion: manifest.apiVersion, kind: manifest.kind };
    if (this.objects.has(keyOf(ref)))
      throw new ExecutionError(`Kubernetes rejected create ${ref.kind} ${ref.name} (409 AlreadyExists): ${ref.kind} "${ref.name}" already exists`, {
        reason: 'AlreadyExists',
        code: 409,
      });
    const stored = this.store({ ...copy(manifest), metadata: { uid: randomUUID(), ...copy(manifest.metadata) } });
    this.writes.push({ method: 'create', ref, body: manifest });
    return stored;
  }
  async dryRunPatch(ref: ResourceRef, patch: PatchBody, options: PatchOptions = {}): Promise<DryRunResult> {
    this.calls.push('dryRunPatch');
    const existing = this.objects.get(keyOf(ref));
    if (!existing) return { accepted: false, reason: 'NotFound', message: `${ref.kind} "${ref.name}" not found`, causes: [] };
    const rejected = conflict(ref, existing, options) ?? this.rejectDryRun?.({ method: 'patch', ref, body: patch });
    if (rejected) return rejected;
    const object = patched(existing, ref, patch, options);
    return typeof object === 'string' ? { accepted: false, reason: 'Invalid', message: object, causes: [] } : { accepted: true, object };
  }
  async patch(ref: ResourceRef, patch: PatchBody, options: PatchOptions = {}): Promise<KubeObject> {
    this.calls.push('patch');
    const existing = this.objects.get(keyOf(ref));
    if (!existing) throw new ExecutionError(`Kubernetes rejected patch ${ref.kind} ${ref.name} (404 NotFound)`);
    if (conflict(ref, existing, options)) throw new ExecutionError(`Kubernetes rejected patch ${ref.kind} ${ref.name} (409 Conflict)`);
    const object = patched(existing, ref, patch, options);
    if (typeof object === 'string') throw new ExecutionError(`Kubernetes rejected patch ${ref.kind} ${ref.name} (422 Invalid): ${object}`);
    this.writes.push({ method: 'patch', ref, body: patch });
    return this.store(object);
  }
  async dryRunDelete(ref: ResourceRef, options: WritePreconditions = {}): Promise<DryRunResult> {
    this.calls.push('dryRunDelete');
    const existing = this.objects.get(keyOf(ref));
    if (!existing) return { accepted: false, reason: 'NotFound', message: `${ref.kind} "${ref.name}" not found`, causes: [] };
    return conflict(ref, existing, options) ?? this.rejectDryRun?.({ method: 'delete', ref }) ?? { accepted: true, object: copy(existing) };
  }
  async delete(ref: ResourceRef, options: WritePreconditions = {}): Promise<boolean> {
    this.calls.push('delete');
    if (options.uid !== undefined && this.objects.get(keyOf(ref)) && options.uid !== this.objects.get(keyOf(ref))?.metadata.uid)
      throw new ExecutionError(`Kubernetes rejected delete ${ref.kind} ${ref.name} (409 Conflict): Precondition failed: UID`);
    if (conflict(ref, this.objects.get(keyOf(ref)), options)) throw new ExecutionError(`Kubernetes rejected delete ${ref.kind} ${ref.name} (409 Conflict)`);
    const existed = this.objects.delete(keyOf(ref));
    if (existed) this.writes.push({ method: 'delete', ref });
    return existed;
  }
  async waitFor(ref: ResourceRef, condition: WaitCondition, _options: WaitOptions): Promise<WaitResult> {
    this.calls.push('waitFor');
    const object = this.objects.get(keyOf(ref)) ?? null;
    return { met: conditionMet(object, condition), elapsedMs: 0, ...(object ? { object: copy(object) } : {}) };
  }

  private store(object: KubeObject): KubeObject {
    const final = this.onWrite ? this.onWrite(object) : object;
    this.objects.set(keyOf({ ...final.metadata, apiVersion: final.apiVersion, kind: final.kind }), final);
    return copy(final);
  }
}
