/**
 * Kubernetes data as the domain sees it: plain JSON objects, never SDK model
 * classes, so use cases and fakes need nothing from @kubernetes/client-node.
 */

/** Any Kubernetes object as JSON (a manifest, or what the API server returned). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: KubeObjectMeta;
  [field: string]: unknown;
}

export interface KubeObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

/**
 * Names one object. `namespace` is ignored for cluster-scoped kinds; for a
 * namespaced kind it defaults to the context's namespace, else `default` (as kubectl does).
 */
export interface ResourceRef {
  /** `v1` or `<group>/<version>`, e.g. `apps/v1`. */
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** One kind the API server serves (from API discovery). */
export interface ApiResourceInfo {
  /** '' for the core group. */
  group: string;
  version: string;
  /** `v1` or `<group>/<version>`. */
  apiVersion: string;
  kind: string;
  /** Plural resource name used in URLs, e.g. `deployments`. */
  resource: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
}

/** The API server's build (from `/version`). */
export interface ClusterVersion {
  /** e.g. `v1.31.2`. */
  gitVersion: string;
  major: string;
  minor: string;
  platform: string;
}

/** A core/v1 Event, flattened. Times are ISO 8601 strings, absent when the server sent none. */
export interface ClusterEvent {
  /** `Normal` or `Warning`. */
  type: string;
  reason: string;
  message: string;
  count: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  involvedObject: { kind: string; name: string; namespace?: string };
}

export interface ListQuery {
  apiVersion: string;
  kind: string;
  /** Omitted for a cluster-scoped kind, or to list a namespaced kind across all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size, 1..500; default 100. Use `continueToken` for the next page. */
  limit?: number;
  continueToken?: string;
}

export interface ListResult {
  items: KubeObject[];
  /** Present when more items exist; pass back as `continueToken`. */
  continueToken?: string;
}

export interface EventQuery {
  /** Omitted: events of all namespaces. */
  namespace?: string;
  /** Only events about this object. */
  involvedObject?: { kind: string; name: string };
  /** 1..500; default 100. */
  limit?: number;
}

export interface LogQuery {
  namespace: string;
  pod: string;
  /** Needed when the pod has more than one container. */
  container?: string;
  /** Last N lines, 1..10000. */
  tailLines?: number;
  sinceSeconds?: number;
  /** Logs of the previous (crashed) container instance. */
  previous?: boolean;
  /** Server-side cap; default and maximum 262144 (256 KiB). */
  limitBytes?: number;
}

/** The OpenAPI v3 schema of one kind, with `$ref`s inlined to a bounded depth. */
export interface ResourceSchema {
  apiVersion: string;
  kind: string;
  /** JSON Schema (OpenAPI 3 dialect). A `$ref` left in place was deeper than the inlining bound. */
  schema: Record<string, unknown>;
}

/** Outcome of a server-side dry-run apply: the server's verdict, not an exception. */
export type DryRunResult =
  | {
      accepted: true;
      object: KubeObject;
      /** The API server's `Warning` headers (deprecations, dropped fields), scrubbed and bounded. */
      warnings?: string[];
    }
  | {
      accepted: false;
      /** Kubernetes Status reason, e.g. `Invalid`, `BadRequest`, `Conflict`, `Forbidden`, `NotFound`. */
      reason: string;
      /** The server's message, scrubbed of credentials. */
      message: string;
      /** Field-level causes when the server gave them. */
      causes: { field?: string; message: string; reason?: string }[];
      /** svc or the cluster refused the caller (their RBAC under SVC_KUBE_IMPERSONATE, or an identity that cannot be sent): executing it is 403. */
      byCaller?: true;
    };

/** Preconditions of a write: the server answers 409 Conflict when they do not hold. */
export interface WritePreconditions {
  /** The object's `metadata.resourceVersion` as it was read: a change made since is a 409, not overwritten. */
  resourceVersion?: string;
  /** For a delete: the object's `metadata.uid` as it was read (DeleteOptions preconditions): another object of the same name since (a Pod re-created) is a 409. */
  uid?: string;
}

/** An apply's or patch's options: its precondition, and where to hand back the server's warnings. */
export interface WriteOptions extends WritePreconditions {
  /**
   * When given, the API server's `Warning` headers on this write (a
   * deprecated apiVersion, a deprecated field or label) are appended to it,
   * scrubbed and bounded as a dry run's: a persisted write answers its own.
   */
  warnings?: string[];
}

/** A create's options: no precondition but the object's absence (the server answers 409 AlreadyExists otherwise). */
export interface CreateOptions {
  /** Field manager recorded on the create; default `svc`. */
  fieldManager?: string;
  /** As WriteOptions.warnings: the server's `Warning` headers on the create. */
  warnings?: string[];
}

export interface ApplyOptions extends WriteOptions {
  /** Field manager recorded by server-side apply; default `svc`. */
  fieldManager?: string;
  /** Take ownership of fields another manager owns. */
  force?: boolean;
}

/** One RFC 6902 JSON Patch operation. */
export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  /** JSON Pointer (RFC 6901). */
  path: string;
  from?: string;
  value?: unknown;
}

/**
 * How a patch is read: `strategic` (strategic merge patch: lists such as
 * containers, env and volumeMounts merge by their keys; built-in kinds only),
 * `merge` (RFC 7386: lists are replaced whole) or `json` (RFC 6902 operations).
 */
export type PatchType = 'strategic' | 'merge' | 'json';

/** A patch body: an object (strategic or merge) or JSON Patch operations. */
export type PatchBody = Record<string, unknown> | JsonPatchOp[];

export interface PatchOptions extends WriteOptions {
  /** Default: `json` for operations, else `strategic` for built-in kinds and `merge` for custom resources (patchTypeFor). */
  patchType?: PatchType;
}

/** What `waitFor` waits for. */
export type WaitCondition =
  | { type: 'exists' }
  | { type: 'deleted' }
  /** `status.conditions[]` has an entry `name` with `status` (default `True`). */
  | { type: 'condition'; name: string; status?: 'True' | 'False' | 'Unknown' }
  /**
   * The rollout of a Deployment or StatefulSet has finished, either way (like `kubectl rollout status`):
   * every replica updated and available, or the controller gave up (progress deadline exceeded).
   * Read the returned object (`rolloutStatus`) to tell which. Any other kind: as soon as it exists.
   */
  | { type: 'rolloutFinished' };

export interface WaitOptions {
  /** Give up after this many milliseconds, 1..3600000. */
  timeoutMs: number;
  /** Poll interval in milliseconds; default 2000, at least 10. */
  intervalMs?: number;
}

export interface WaitResult {
  met: boolean;
  /** Milliseconds spent waiting. */
  elapsedMs: number;
  /** Last object seen; absent when it did not exist at the last poll. */
  object?: KubeObject;
}

export interface DescribeResult {
  object: KubeObject;
  /** Events about the object, oldest first. */
  events: ClusterEvent[];
}
