import type {
  ApiResourceInfo,
  ApplyOptions,
  ClusterEvent,
  ClusterVersion,
  DescribeResult,
  DryRunResult,
  EventQuery,
  KubeObject,
  ListQuery,
  ListResult,
  LogQuery,
  ResourceRef,
  ResourceSchema,
  WaitCondition,
  WaitOptions,
  WaitResult,
} from '../cluster/kube-types.js';

/** What the `version` tool reports about the cluster. */
export interface ClusterStatus {
  connected: boolean;
  /** Current kubeconfig context name, or 'in-cluster'; '' when none is configured. */
  context: string;
  /** Server version (gitVersion) when connected. */
  serverVersion?: string;
  /** Why it is not connected, with what to set. Never carries a credential. */
  error?: string;
}

/**
 * Kubernetes API access for the AI tools.
 *
 * Common contract for every method but `status` and `context`:
 * - Arguments are validated before any I/O; a malformed apiVersion, kind,
 *   name, namespace or manifest throws ValidationError.
 * - With no cluster configured, NotConfiguredError (its message says to set
 *   KUBECONFIG or run in a cluster).
 * - The API server unreachable, not answering in time, answering 5xx or 429,
 *   or refusing the credentials (401/403): DependencyError('kubernetes', ...).
 * - A kind the cluster does not serve under that apiVersion: ExecutionError.
 * - The server rejecting the request with another 4xx (400, 409 conflict,
 *   422 invalid; 404 where absence is not documented as null/false):
 *   ExecutionError with the server's message and `details: { reason, code, causes }`.
 * - No message ever carries a credential (token, client key, password).
 * - Objects returned carry no `metadata.managedFields`; a Secret's `data` and
 *   `stringData` values (and its last-applied annotation) read `***`.
 */
export interface ClusterClient {
  /** Never throws: an unreachable or absent cluster is `connected: false` with an `error`. */
  status(): Promise<ClusterStatus>;

  /** Current context name ('in-cluster' inside a pod, '' when not configured). Never throws, no I/O. */
  context(): string;

  /** The API server's version (GET /version). */
  version(): Promise<ClusterVersion>;

  /**
   * Every kind served, from API discovery (preferred and other versions of every group).
   * Subresources (`pods/log`) are left out. A group whose discovery fails is skipped
   * (aggregated APIs are often down), unless every group fails.
   */
  listApiResources(): Promise<ApiResourceInfo[]>;

  /** OpenAPI v3 schema of a kind; null when the server publishes none for that group/version/kind. */
  getResourceSchema(apiVersion: string, kind: string): Promise<ResourceSchema | null>;

  /** One page of objects; items carry apiVersion and kind. */
  list(query: ListQuery): Promise<ListResult>;

  /** The object, or null when it does not exist. */
  get(ref: ResourceRef): Promise<KubeObject | null>;

  /** The object plus the events about it (like `kubectl describe`); null when it does not exist. */
  describe(ref: ResourceRef): Promise<DescribeResult | null>;

  /** Events, oldest first. */
  events(query: EventQuery): Promise<ClusterEvent[]>;

  /** Container log text, at most `limitBytes` (default 256 KiB). A missing pod throws ExecutionError. */
  logs(query: LogQuery): Promise<string>;

  /**
   * Server-side apply with `dryRun=All`: nothing is persisted. The server's
   * rejection (400/404/409/422, or 403 from admission) is returned as
   * `accepted: false` so a caller can fix the manifest; transport failures still throw.
   */
  dryRunApply(manifest: KubeObject, options?: ApplyOptions): Promise<DryRunResult>;

  /** Server-side apply (create or update); returns the object as stored. */
  apply(manifest: KubeObject, options?: ApplyOptions): Promise<KubeObject>;

  /** Deletes with background propagation; false when it did not exist. */
  delete(ref: ResourceRef): Promise<boolean>;

  /**
   * Polls the object until `condition` holds or `options.timeoutMs` passes.
   * A timeout is `met: false`, not an error.
   */
  waitFor(ref: ResourceRef, condition: WaitCondition, options: WaitOptions): Promise<WaitResult>;
}
