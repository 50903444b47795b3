import type {
  ApiResourceInfo,
  ClusterEvent,
  ClusterVersion,
  DescribeResult,
  EventQuery,
  KubeObject,
  ListQuery,
  ListResult,
  LogQuery,
  ResourceRef,
  ResourceSchema,
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
 * Read-only Kubernetes API access: everything a model may call while it
 * investigates. Nothing here can change the cluster, so the functions offered
 * to a model are built from this port alone.
 *
 * Common contract for every method but `status` and `context`:
 * - Arguments are validated before any I/O; a malformed apiVersion, kind,
 *   name, namespace or query throws ValidationError.
 * - With no cluster configured, NotConfiguredError (its message says to set
 *   KUBECONFIG or run in a cluster).
 * - The API server unreachable, not answering in time, answering 5xx or 429,
 *   or refusing the credentials (401/403): DependencyError('kubernetes', ...).
 * - A kind the cluster does not serve under that apiVersion: ExecutionError.
 * - The server rejecting the request with another 4xx: ExecutionError with
 *   the server's message and `details: { reason, code, causes }`.
 * - No message ever carries a credential (token, client key, password).
 * - Objects returned carry no `metadata.managedFields`; a Secret's `data` and
 *   `stringData` values (and its last-applied annotation) read `***`.
 */
export interface ClusterReader {
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

  /**
   * What discovery says about one kind of one group version: its plural
   * resource and whether it is namespaced; null when the cluster does not
   * serve that kind there. The write guard resolves every target with it,
   * never from a model's words. Cached briefly by the adapter; a kind missing
   * from a cached list is looked up again (a CRD installed since).
   */
  resolveKind(apiVersion: string, kind: string): Promise<ApiResourceInfo | null>;

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
}

/** The reader methods, by name: what `readOnlyView` copies and nothing else. */
export const CLUSTER_READER_METHODS = [
  'status',
  'context',
  'version',
  'listApiResources',
  'resolveKind',
  'getResourceSchema',
  'list',
  'get',
  'describe',
  'events',
  'logs',
] as const satisfies readonly (keyof ClusterReader)[];

/**
 * A view of `cluster` that has the reader methods and nothing else: handing
 * it on cannot leak a write method, not even through a cast.
 */
export function readOnlyView(cluster: ClusterReader): ClusterReader {
  const view: Partial<Record<keyof ClusterReader, unknown>> = {};
  for (const name of CLUSTER_READER_METHODS) {
    const method = cluster[name] as (...args: unknown[]) => unknown;
    view[name] = (...args: unknown[]) => method.apply(cluster, args);
  }
  return Object.freeze(view) as ClusterReader;
}
