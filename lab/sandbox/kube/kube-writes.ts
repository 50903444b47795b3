/**
 * The write verbs of the Kubernetes API stand-in, answering like kube-apiserver:
 *
 * - `applyPatch`: server-side apply (`application/apply-patch+yaml`; JSON is
 *   YAML): `fieldManager` required; the applied fields merged and owned field
 *   by field (kube-ssa.ts), a field another manager owns with another value is
 *   a 409 conflict naming it unless `force=true`; 201 on create and 200 on update.
 *   Every write keeps `managedFields` (an ordinary write owns what it changed).
 * - `patchObject`: `application/merge-patch+json` (RFC 7386: arrays replace),
 *   `application/strategic-merge-patch+json` (lists merge by their patch merge
 *   key; built-in kinds only: a custom resource answers 415 as the real server
 *   does) and `application/json-patch+json` (RFC 6902; an op that does not
 *   apply is 422); 404 Status for a missing object.
 * - `metadata.resourceVersion` in a patch, a JSON Patch result or an applied
 *   manifest is a precondition: 409 Conflict when it is not the stored one;
 *   `preconditions.resourceVersion` in a delete's body likewise.
 * - `fieldValidation`: `Strict` refuses fields the kind does not declare
 *   (kube-fields.ts) with 400 "strict decoding error: unknown field"; `Warn`
 *   (the default) and `Ignore` drop them, `Warn` with a `Warning: 299` header.
 * - `Warning` headers also on every write and dry run of a pod template that
 *   selects nodes by a deprecated label (`beta.kubernetes.io/arch`), and
 *   whatever the cluster's `admissionWarnings` webhook says.
 * - All: `dryRun=All` answers with the object as it would be stored and
 *   persists nothing; `generation` rises when `spec` changes, `resourceVersion` on
 *   every write; validation as the server does it for what the simulation needs
 *   (negative replicas, a Job's template immutable, Deployment selector immutable and matching the template
 *   labels) with 422 Invalid Status and causes; the server's defaults (Deployment
 *   strategy, revisionHistoryLimit, progressDeadlineSeconds; Service clusterIP).
 * - `createObject`: POST to the collection, 201 with the object as stored; 409
 *   AlreadyExists Status when an object of that name exists (nothing changed);
 *   a `resourceVersion` in the body is 400, as kube-apiserver answers.
 * - `deleteObject`: 200 Success Status (details name, group, kind, uid); with
 *   `dryRun=All` 200 with the object that would be deleted, nothing removed;
 *   `preconditions.uid` that is not the stored object's is 409 Conflict.
 * Every write that persisted something marks the object simulated and reconciles.
 */
import { randomUUID } from 'node:crypto';
import { canonical, type KubeCluster, type Obj } from './kube-cluster.js';
import type { RecordedRequest } from './kube-api-server.js';
import { pruneFields, unknownFields } from './kube-fields.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from './kube-patches.js';
import { conflictMessage, serverSideApply, updateOwnership } from './kube-ssa.js';

/** Status, body, content type, `Warning` header values. */
export type Answer = [number, unknown, string?, string[]?];

export const statusBody = (code: number, reason: string, message: string, causes?: Obj[]) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  code,
  ...(causes ? { details: { causes } } : {}),
});

/** Where a request writes: group version, kind and resource of the path, and the object's name and namespace. */
export interface Target {
  gv: string;
  kind: string;
  resource: string;
  path: string;
  namespace?: string;
  name: string;
}

const group = (gv: string) => (gv.includes('/') ? gv.split('/')[0] : '');
const qualified = (t: Target) => `${t.resource}${group(t.gv) ? `.${group(t.gv)}` : ''}`;
const notFound = (t: Target): Answer => [404, statusBody(404, 'NotFound', `${qualified(t)} "${t.name}" not found`)];

/** API groups of the built-in kinds: the only ones strategic merge patch works on. */
const BUILT_IN_GROUPS = new Set([
  '',
  'apps',
  'batch',
  'autoscaling',
  'policy',
  'rbac.authorization.k8s.io',
  'networking.k8s.io',
  'storage.k8s.io',
  'scheduling.k8s.io',
]);

const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

export function writePatch(c: KubeCluster, r: RecordedRequest, t: Target): Answer {
  const builtIn = BUILT_IN_GROUPS.has(group(t.gv));
  if (r.contentType === 'application/apply-patch+yaml') return applyPatch(c, r, t);
  if (r.contentType === MERGE || r.contentType === JSON_PATCH || (r.contentType === STRATEGIC && builtIn)) return patchObject(c, r, t);
  const accepted = [JSON_PATCH, MERGE, 'application/apply-patch+yaml', ...(builtIn ? [STRATEGIC] : [])];
  return [
    415,
    statusBody(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`),
  ];
}

/** The body as a JSON array (a JSON Patch), or undefined. */
function parseOps(r: RecordedRequest): unknown[] | undefined {
  try {
    const body = JSON.parse(r.body ?? '');
    return Array.isArray(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

/** The body as a JSON object, or undefined. */
function parse(r: RecordedRequest): Obj | undefined {
  try {
    const body = JSON.parse(r.body ?? '');
    return body && typeof body === 'object' && !Array.isArray(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

const modified = (t: Target): Answer => [
  409,
  statusBody(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(t)} "${t.name}": the object has been modified; please apply your changes to the latest version and try again`,
  ),
];

const undecodable = (what: string): Answer => [400, statusBody(400, 'BadRequest', `error decoding ${what}: the body is not a JSON object`)];

function applyPatch(c: KubeCluster, r: RecordedRequest, t: Target): Answer {
  const manager = r.query.get('fieldManager');
  if (!manager)
    return [400, statusBody(400, 'BadRequest', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch')];
  const body = parse(r);
  if (!body) return undecodable('YAML');
  if (body.kind !== t.kind || body.apiVersion !== t.gv || body.metadata?.name !== t.name)
    return [400, statusBody(400, 'BadRequest', 'the name, kind or apiVersion of the object does not match the request')];
  if (t.namespace && !c.objects.has(`/api/v1/namespaces/${t.namespace}`)) return [404, statusBody(404, 'NotFound', `namespaces "${t.namespace}" not found`)];
  const existing = c.objects.get(t.path);
  const wanted = body.metadata?.resourceVersion;
  if (wanted !== undefined && wanted !== existing?.metadata.resourceVersion) return existing ? modified(t) : notFound(t);
  const applied = serverSideApply(existing, body, manager, t.gv, r.query.get('force') === 'true', c.now());
  if (applied.conflicts) {
    const message = conflictMessage(applied.conflicts);
    const causes = applied.conflicts.flatMap((k) =>
      k.fields.map((field) => ({ reason: 'FieldManagerConflict', message: `conflict with ${JSON.stringify(k.manager)} using ${k.apiVersion}`, field })),
    );
    return [409, statusBody(409, 'Conflict', message, causes)];
  }
  const merged = { ...applied.merged!, metadata: { ...applied.merged!.metadata }, ...(existing?.status ? { status: existing.status } : {}) };
  const managedFields = applied.managedFields!;
  return persist(c, r, t, existing, merged, managedFields);
}

function patchObject(c: KubeCluster, r: RecordedRequest, t: Target): Answer {
  const ops = r.contentType === JSON_PATCH ? parseOps(r) : undefined;
  const patch = r.contentType === JSON_PATCH ? undefined : parse(r);
  if (!ops && !patch) return undecodable('patch');
  const existing = c.objects.get(t.path);
  if (!existing) return notFound(t);
  let merged: Obj;
  if (ops) {
    const out = applyJsonPatch(existing, ops);
    if ('error' in out) return [422, statusBody(422, 'Invalid', `the server rejected our request due to an error in our request: ${out.error}`)];
    merged = out.result;
  } else
    merged = (
      r.contentType === STRATEGIC ? applyStrategicMergePatch(structuredClone(existing), patch) : applyMergePatch(structuredClone(existing), patch)
    ) as Obj;
  // a resourceVersion the patch sets (or leaves) that is not the stored one is an optimistic-concurrency precondition;
  // a patch that removes it (a JSON Patch replacing /metadata) is an unconditional update, as kube-apiserver treats it
  const version = merged.metadata?.resourceVersion;
  if (version !== undefined && version !== existing.metadata.resourceVersion) return modified(t);
  if (merged.kind !== t.kind || merged.apiVersion !== t.gv || merged.metadata?.name !== t.name)
    return [400, statusBody(400, 'BadRequest', 'the name, kind or apiVersion of the object does not match the request')];
  const managedFields = updateOwnership(existing, merged, r.query.get('fieldManager') ?? 'unknown', t.gv, c.now());
  return persist(c, r, t, existing, merged, managedFields);
}

/**
 * POST to a collection (`t.name` empty): the object's name from its body;
 * 409 AlreadyExists when one of that name is stored, as kube-apiserver
 * answers (nothing is changed, dry run or not).
 */
export function createObject(c: KubeCluster, r: RecordedRequest, t: Omit<Target, 'name' | 'path'> & { collection: string }): Answer {
  const body = parse(r);
  if (!body) return undecodable('object');
  const name = body.metadata?.name;
  if (typeof name !== 'string' || !name)
    return [422, statusBody(422, 'Invalid', `${t.kind} "" is invalid: metadata.name: Required value: name or generateName is required`)];
  if (body.kind !== t.kind || body.apiVersion !== t.gv)
    return [400, statusBody(400, 'BadRequest', 'the kind or apiVersion of the object does not match the request')];
  if (body.metadata.namespace !== undefined && body.metadata.namespace !== t.namespace)
    return [400, statusBody(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request')];
  if (body.metadata.resourceVersion) return [400, statusBody(400, 'BadRequest', 'resourceVersion should not be set on objects to be created')];
  const target: Target = { ...t, name, path: `${t.collection}/${name}` };
  if (t.namespace && !c.objects.has(`/api/v1/namespaces/${t.namespace}`)) return [404, statusBody(404, 'NotFound', `namespaces "${t.namespace}" not found`)];
  if (c.objects.has(target.path)) return [409, statusBody(409, 'AlreadyExists', `${qualified(target)} "${name}" already exists`)];
  const managedFields = updateOwnership(undefined, body, r.query.get('fieldManager') ?? 'unknown', t.gv, c.now());
  return persist(c, r, target, undefined, { ...body, metadata: { ...body.metadata } }, managedFields);
}

/** Field validation of what the request added: Strict refuses unknown fields, Warn and Ignore drop them (Warn says so). */
function validateFields(r: RecordedRequest, t: Target, obj: Obj, existing: Obj | undefined): { obj: Obj; warnings: string[] } | Answer {
  const before = new Set(existing ? unknownFields(t.kind, existing) : []);
  const unknown = unknownFields(t.kind, obj).filter((p) => !before.has(p));
  if (unknown.length === 0) return { obj, warnings: [] };
  const mode = r.query.get('fieldValidation') ?? 'Warn';
  const version = t.gv.split('/').at(-1);
  if (mode === 'Strict')
    return [
      400,
      statusBody(
        400,
        'BadRequest',
        `${t.kind} in version "${version}" cannot be handled as a ${t.kind}: strict decoding error: ${unknown.map((p) => `unknown field "${p}"`).join(', ')}`,
      ),
    ];
  return { obj: pruneFields(obj, unknown), warnings: mode === 'Warn' ? unknown.map((p) => `unknown field "${p}"`) : [] };
}

/** Validates, defaults, sets the server-owned metadata and stores unless dry-run; reconciles after a real write. */
function persist(c: KubeCluster, r: RecordedRequest, t: Target, existing: Obj | undefined, requested: Obj, managedFields: Obj[]): Answer {
  const checked = validateFields(r, t, requested, existing);
  if (Array.isArray(checked)) return checked;
  const { obj, warnings } = checked;
  const invalid = validate(t, obj, existing);
  if (invalid) return invalid;
  setDefaults(obj, existing);
  const specChanged = canonical(obj.spec) !== canonical(existing?.spec);
  const dryRun = r.query.get('dryRun') === 'All';
  warnings.push(...podTemplateWarnings(obj), ...(c.admissionWarnings?.(structuredClone(obj), dryRun) ?? []));
  obj.metadata = {
    ...obj.metadata,
    ...(t.namespace ? { namespace: t.namespace } : {}),
    uid: existing?.metadata.uid ?? randomUUID(),
    resourceVersion: dryRun ? (existing?.metadata.resourceVersion ?? '') : c.nextResourceVersion(),
    generation: !existing ? 1 : (existing.metadata.generation ?? 1) + (specChanged ? 1 : 0),
    creationTimestamp: existing?.metadata.creationTimestamp ?? c.now(),
    managedFields,
  };
  if (dryRun) return [existing ? 200 : 201, obj, undefined, warnings];
  c.objects.set(t.path, obj);
  c.simulate(obj);
  const answer = structuredClone(obj);
  c.reconcile();
  return [existing ? 200 : 201, answer, undefined, warnings];
}

/** Node labels deprecated in node selectors, with kube-apiserver's words (pkg/api/pod/warnings.go). */
const DEPRECATED_NODE_LABELS: Record<string, string> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
};

/** The warnings kube-apiserver sends on every create, update and dry run of a Pod or pod template that uses a deprecated node label. */
function podTemplateWarnings(obj: Obj): string[] {
  const at: [string, Obj | undefined] = ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job'].includes(obj.kind)
    ? ['spec.template.spec', obj.spec?.template?.spec]
    : obj.kind === 'Pod'
      ? ['spec', obj.spec]
      : ['', undefined];
  return Object.keys(at[1]?.nodeSelector ?? {})
    .filter((k) => DEPRECATED_NODE_LABELS[k])
    .map((k) => `${at[0]}.nodeSelector[${k}]: ${DEPRECATED_NODE_LABELS[k]}`);
}

function validate(t: Target, obj: Obj, existing: Obj | undefined): Answer | undefined {
  const invalid = (field: string, detail: string, reason = 'FieldValueInvalid'): Answer => [
    422,
    statusBody(422, 'Invalid', `${t.kind}${group(t.gv) ? `.${group(t.gv)}` : ''} "${t.name}" is invalid: ${field}: ${detail}`, [
      { reason, message: detail, field },
    ]),
  ];
  const replicas = obj.spec?.replicas;
  if (typeof replicas === 'number' && replicas < 0) return invalid('spec.replicas', `Invalid value: ${replicas}: must be greater than or equal to 0`);
  // a Job's pods are made from the template it started with: a change of it is refused, as the API server does (delete and recreate the Job instead)
  if (t.kind === 'Job' && existing && canonical(obj.spec?.template) !== canonical(existing.spec?.template))
    return invalid('spec.template', `Invalid value: ${JSON.stringify(obj.spec?.template ?? null)}: field is immutable`);
  if (t.kind !== 'Deployment' && t.kind !== 'StatefulSet') return undefined;
  const selector = obj.spec?.selector;
  if (existing && canonical(selector) !== canonical(existing.spec?.selector))
    return invalid('spec.selector', `Invalid value: ${JSON.stringify(selector ?? null)}: field is immutable`);
  const labels = obj.spec?.template?.metadata?.labels;
  const matches = Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels?.[k] === v);
  if (labels && !matches)
    return invalid('spec.template.metadata.labels', `Invalid value: ${JSON.stringify(labels)}: \`selector\` does not match template \`labels\``);
  return undefined;
}

/** The defaults kube-apiserver sets on a stored object (also for the sandbox's fixtures, created as a client would). */
export function setDefaults(obj: Obj, existing: Obj | undefined): void {
  if (obj.kind === 'Deployment' && obj.spec) {
    obj.spec = { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, ...obj.spec };
    obj.spec.strategy ??= { type: 'RollingUpdate' };
    if (obj.spec.strategy.type === 'RollingUpdate')
      obj.spec.strategy.rollingUpdate = { maxSurge: '25%', maxUnavailable: '25%', ...obj.spec.strategy.rollingUpdate };
  }
  if (obj.kind === 'Service') {
    const ip = existing?.spec?.clusterIP ?? `10.96.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;
    obj.spec = { type: 'ClusterIP', sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ...obj.spec };
    if (obj.spec.type !== 'ExternalName') Object.assign(obj.spec, { clusterIP: obj.spec.clusterIP ?? ip, clusterIPs: [obj.spec.clusterIP ?? ip] });
    obj.status ??= { loadBalancer: {} };
  }
}

export function deleteObject(c: KubeCluster, r: RecordedRequest, t: Target): Answer {
  const existing = c.objects.get(t.path);
  if (!existing) return notFound(t);
  const uid = parse(r)?.preconditions?.uid;
  if (uid !== undefined && uid !== existing.metadata.uid)
    return [409, statusBody(409, 'Conflict', `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${existing.metadata.uid}`)];
  const wanted = parse(r)?.preconditions?.resourceVersion;
  if (wanted !== undefined && wanted !== existing.metadata.resourceVersion)
    return [
      409,
      statusBody(
        409,
        'Conflict',
        `Precondition failed: ResourceVersion in precondition: ${wanted}, ResourceVersion in object meta: ${existing.metadata.resourceVersion}`,
      ),
    ];
  if (r.query.get('dryRun') === 'All') return [200, existing];
  c.remove(existing);
  c.objects.delete(t.path);
  c.reconcile();
  return [
    200,
    {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: t.name, group: group(t.gv), kind: t.resource, uid: existing.metadata.uid },
    },
  ];
}
