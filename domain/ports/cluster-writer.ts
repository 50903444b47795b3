import type {
  ApplyOptions,
  CreateOptions,
  DryRunResult,
  KubeObject,
  PatchBody,
  PatchOptions,
  ResourceRef,
  WaitCondition,
  WaitOptions,
  WaitResult,
  WritePreconditions,
} from '../cluster/kube-types.js';

/**
 * Kubernetes API writes. Use cases call these only after a server-side dry
 * run of every change and the user's approval (or the automatic-mode rules):
 * never from a function a model calls.
 *
 * Same failure contract as ClusterReader. The `dryRun*` methods return the
 * server's verdict: a rejection (400/403/404/409/422) is `accepted: false`
 * with the server's reason, message and causes, so a caller can show it or
 * fix the change; transport failures, 401, 429 and 5xx still throw.
 *
 * Every apply and patch, dry run or not, is sent with `fieldValidation=Strict`:
 * a field the kind does not declare is a refusal, never silently dropped. A
 * namespaced kind needs `namespace` on every write (never taken from the
 * kubeconfig context): without it the write is refused. `resourceVersion` in
 * the options is a precondition: when the object changed since it was read,
 * the server answers 409 (`accepted: false`, reason `Conflict`, for a dry run).
 */
export interface ClusterWriter {
  /** Server-side apply with `dryRun=All`: nothing is persisted. */
  dryRunApply(manifest: KubeObject, options?: ApplyOptions): Promise<DryRunResult>;

  /**
   * A create (POST to the collection) with `dryRun=All`: nothing is
   * persisted. An object of that name already there is `accepted: false`,
   * reason `AlreadyExists` (the server's 409).
   */
  dryRunCreate(manifest: KubeObject, options?: CreateOptions): Promise<DryRunResult>;

  /**
   * Creates the object, only if it is absent: one of that name already there
   * is the server's 409 AlreadyExists (ExecutionError, reason
   * `AlreadyExists`), never overwritten. Returns the object as stored.
   */
  create(manifest: KubeObject, options?: CreateOptions): Promise<KubeObject>;

  /** Server-side apply (create or update); returns the object as stored, and the server's `Warning` headers in `options.warnings` when given. */
  apply(manifest: KubeObject, options?: ApplyOptions): Promise<KubeObject>;

  /**
   * A patch with `dryRun=All`, of the type `options.patchType` or `patchTypeFor`
   * (strategic merge for built-in kinds, JSON merge for custom resources, JSON
   * Patch for an array of operations). A missing object is `accepted: false`, reason `NotFound`.
   */
  dryRunPatch(ref: ResourceRef, patch: PatchBody, options?: PatchOptions): Promise<DryRunResult>;

  /** The same patch, persisted; returns the object as stored (its `Warning` headers in `options.warnings` when given). A missing object throws ExecutionError. */
  patch(ref: ResourceRef, patch: PatchBody, options?: PatchOptions): Promise<KubeObject>;

  /** Delete with `dryRun=All`; `object` is the object that would be deleted. A missing object is `accepted: false`, reason `NotFound`. */
  dryRunDelete(ref: ResourceRef, options?: WritePreconditions): Promise<DryRunResult>;

  /** Deletes with background propagation; false when it did not exist. */
  delete(ref: ResourceRef, options?: WritePreconditions): Promise<boolean>;

  /**
   * Polls the object until `condition` holds or `options.timeoutMs` passes.
   * A timeout is `met: false`, not an error.
   */
  waitFor(ref: ResourceRef, condition: WaitCondition, options: WaitOptions): Promise<WaitResult>;
}

/** The writer methods, by name (as CLUSTER_READER_METHODS lists the reader's). */
export const CLUSTER_WRITER_METHODS = [
  'dryRunApply',
  'apply',
  'dryRunCreate',
  'create',
  'dryRunPatch',
  'patch',
  'dryRunDelete',
  'delete',
  'waitFor',
] as const satisfies readonly (keyof ClusterWriter)[];
