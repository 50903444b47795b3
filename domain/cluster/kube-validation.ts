import { ValidationError } from '../errors.js';
import type { EventQuery, JsonPatchOp, KubeObject, ListQuery, LogQuery, PatchBody, ResourceRef, WaitCondition, WaitOptions } from './kube-types.js';

/**
 * Checks run before any request reaches the API server. Names end up in URL
 * paths, so anything that could change the path ('/', '..', '?', control
 * characters) is refused here rather than trusted to encoding.
 */

const API_VERSION = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?v[0-9]+((alpha|beta)[0-9]+)?$/;
const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;
// Object names: DNS subdomains, plus ':' which RBAC names use (system:controller:...).
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.:]{0,251}[A-Za-z0-9])?$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
// Selectors go into a query string: printable ASCII only, bounded.
const SELECTOR = /^[\x20-\x7e]{0,1024}$/;
const CONTAINER = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const FIELD_MANAGER = /^[\x21-\x7e]{1,128}$/;

export function validateApiVersion(apiVersion: unknown): string {
  if (typeof apiVersion !== 'string' || !API_VERSION.test(apiVersion)) {
    throw new ValidationError(`Invalid apiVersion: ${String(apiVersion)} (expected v1 or <group>/<version>)`);
  }
  return apiVersion;
}

export function validateKind(kind: unknown): string {
  if (typeof kind !== 'string' || !KIND.test(kind)) {
    throw new ValidationError(`Invalid kind: ${String(kind)} (expected a CamelCase kind such as Deployment)`);
  }
  return kind;
}

export function validateName(name: unknown, what = 'name'): string {
  if (typeof name !== 'string' || !NAME.test(name) || name.includes('..')) {
    throw new ValidationError(`Invalid ${what}: ${JSON.stringify(name)}`);
  }
  return name;
}

export function validateNamespace(namespace: unknown): string | undefined {
  if (namespace === undefined) return undefined;
  if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
    throw new ValidationError(`Invalid namespace: ${JSON.stringify(namespace)}`);
  }
  return namespace;
}

function validateSelector(selector: string | undefined, what: string): void {
  if (selector !== undefined && (typeof selector !== 'string' || !SELECTOR.test(selector))) {
    throw new ValidationError(`Invalid ${what}: printable ASCII up to 1024 characters`);
  }
}

export function validateIntRange(value: number | undefined, what: string, min: number, max: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(`Invalid ${what}: ${value} (an integer from ${min} to ${max})`);
  }
}

export function validateRef(ref: ResourceRef): ResourceRef {
  validateApiVersion(ref?.apiVersion);
  validateKind(ref.kind);
  validateName(ref.name);
  validateNamespace(ref.namespace);
  return ref;
}

/** A manifest needs apiVersion, kind and metadata.name; metadata.namespace is optional. */
export function validateManifest(manifest: KubeObject): KubeObject {
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest)) {
    throw new ValidationError('Invalid manifest: expected a JSON object');
  }
  if (!manifest.metadata || typeof manifest.metadata !== 'object') {
    throw new ValidationError('Invalid manifest: metadata.name is required');
  }
  validateRef({
    apiVersion: manifest.apiVersion,
    kind: manifest.kind,
    name: manifest.metadata.name,
    namespace: manifest.metadata.namespace,
  });
  return manifest;
}

const JSON_PATCH_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);
const MAX_JSON_PATCH_OPS = 100;
/** Pointers a JSON Patch may not touch: the object's identity. */
const FIXED_POINTERS = /^\/(apiVersion|kind|metadata\/name|metadata\/namespace)(\/|$)/;

/**
 * A patch: a non-empty object (strategic or JSON merge patch) or a non-empty
 * list of RFC 6902 operations, that does not try to rename or move the object
 * it patches.
 */
export function validatePatch(patch: PatchBody): void {
  if (Array.isArray(patch)) return validateJsonPatch(patch);
  if (!patch || typeof patch !== 'object' || Object.keys(patch).length === 0) {
    throw new ValidationError('Invalid patch: expected a non-empty JSON object (a merge patch) or a list of JSON Patch operations');
  }
  for (const key of ['apiVersion', 'kind'] as const) {
    if (key in patch) throw new ValidationError(`Invalid patch: ${key} cannot be patched`);
  }
  const metadata = patch.metadata as Record<string, unknown> | undefined;
  if (metadata && typeof metadata === 'object' && ('name' in metadata || 'namespace' in metadata)) {
    throw new ValidationError('Invalid patch: metadata.name and metadata.namespace cannot be patched');
  }
}

function validateJsonPatch(ops: JsonPatchOp[]): void {
  if (ops.length === 0 || ops.length > MAX_JSON_PATCH_OPS) throw new ValidationError(`Invalid patch: a JSON Patch needs 1 to ${MAX_JSON_PATCH_OPS} operations`);
  for (const [i, op] of ops.entries()) {
    if (!op || typeof op !== 'object' || !JSON_PATCH_OPS.has(op.op) || typeof op.path !== 'string' || (op.path !== '' && !op.path.startsWith('/')))
      throw new ValidationError(`Invalid patch: operation ${i + 1} needs "op" (add, remove, replace, move, copy or test) and a JSON Pointer "path"`);
    for (const pointer of [op.path, op.from])
      if (typeof pointer === 'string' && (pointer === '' || FIXED_POINTERS.test(pointer)) && op.op !== 'test')
        throw new ValidationError(`Invalid patch: operation ${i + 1} may not change ${pointer || 'the whole object'}`);
  }
}

export function validateFieldManager(fieldManager: string | undefined): void {
  if (fieldManager !== undefined && !FIELD_MANAGER.test(fieldManager)) {
    throw new ValidationError('Invalid fieldManager: 1 to 128 printable characters without spaces');
  }
}

export function validateListQuery(query: ListQuery): void {
  validateApiVersion(query?.apiVersion);
  validateKind(query.kind);
  validateNamespace(query.namespace);
  validateSelector(query.labelSelector, 'labelSelector');
  validateSelector(query.fieldSelector, 'fieldSelector');
  validateSelector(query.continueToken, 'continueToken');
  validateIntRange(query.limit, 'limit', 1, 500);
}

export function validateEventQuery(query: EventQuery): void {
  validateNamespace(query?.namespace);
  if (query.involvedObject) {
    validateKind(query.involvedObject.kind);
    validateName(query.involvedObject.name);
  }
  validateIntRange(query.limit, 'limit', 1, 500);
}

export const MAX_LOG_BYTES = 262144;

export function validateLogQuery(query: LogQuery): void {
  if (validateNamespace(query?.namespace) === undefined) throw new ValidationError('Invalid namespace: required for logs');
  validateName(query.pod, 'pod name');
  if (query.container !== undefined && !CONTAINER.test(query.container)) {
    throw new ValidationError(`Invalid container name: ${JSON.stringify(query.container)}`);
  }
  validateIntRange(query.tailLines, 'tailLines', 1, 10000);
  validateIntRange(query.sinceSeconds, 'sinceSeconds', 1, 31536000);
  validateIntRange(query.limitBytes, 'limitBytes', 1, MAX_LOG_BYTES);
}

export function validateWaitOptions(options: WaitOptions): void {
  if (!options) throw new ValidationError('Invalid wait options: timeoutMs is required');
  validateIntRange(options.timeoutMs, 'timeoutMs', 1, 3600000);
  if (options.timeoutMs === undefined) throw new ValidationError('Invalid wait options: timeoutMs is required');
  validateIntRange(options.intervalMs, 'intervalMs', 10, 600000);
}

export function validateWaitCondition(condition: WaitCondition): void {
  const type = (condition as { type?: unknown } | undefined)?.type;
  if (type === 'exists' || type === 'deleted' || type === 'rolloutFinished') return;
  if (type !== 'condition') throw new ValidationError('Invalid wait condition: type must be exists, deleted, condition or rolloutFinished');
  const { name, status } = condition as { name?: unknown; status?: unknown };
  if (typeof name !== 'string' || !KIND.test(name)) {
    throw new ValidationError(`Invalid wait condition name: ${JSON.stringify(name)}`);
  }
  if (status !== undefined && status !== 'True' && status !== 'False' && status !== 'Unknown') {
    throw new ValidationError('Invalid wait condition status: True, False or Unknown');
  }
}
