import type { ClusterClient } from '../../domain/ports/cluster-client.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import { asString, field, traceMethods, type CallSpan, type SpanPlan } from './trace-methods.js';

interface Target {
  api?: string;
  resource?: string;
  name?: string;
  namespace?: string;
}

/** The object a call is about: a ResourceRef, a ListQuery, or a manifest (apiVersion/kind at the top, name/namespace in metadata). */
function targetOf(value: unknown): Target {
  const metadata = field(value, 'metadata');
  return {
    api: asString(field(value, 'apiVersion')),
    resource: asString(field(value, 'kind')),
    name: asString(field(value, 'name')) ?? asString(field(metadata, 'name')),
    namespace: asString(field(value, 'namespace')) ?? asString(field(metadata, 'namespace')),
  };
}

function clusterCall(method: string, operation: string, target: Target): CallSpan {
  return {
    name: method,
    attributes: {
      'k8s.api': target.api,
      'k8s.method': method,
      'k8s.operation': operation,
      'k8s.resource': target.resource,
      'k8s.resource.name': target.name,
      'k8s.namespace.name': target.namespace,
    },
  };
}

const fixed =
  (method: string, operation: string, target: Target = {}): SpanPlan[string] =>
  () =>
    clusterCall(method, operation, target);
const about =
  (method: string, operation: string): SpanPlan[string] =>
  (args) =>
    clusterCall(method, operation, targetOf(args[0]));

/** Spans named by the API method, with the Kubernetes verb as `k8s.operation`. `status()` is a probe and is not traced (as the vector store's). */
const CLUSTER_PLAN: SpanPlan = {
  version: fixed('version', 'get', { api: 'version' }),
  listApiResources: fixed('listApiResources', 'discovery'),
  resolveKind: (args) => clusterCall('resolveKind', 'discovery', { api: asString(args[0]), resource: asString(args[1]) }),
  getResourceSchema: (args) => clusterCall('getResourceSchema', 'get', { api: asString(args[0]), resource: asString(args[1]) }),
  list: about('list', 'list'),
  get: about('get', 'get'),
  describe: about('describe', 'get'),
  events: (args) => clusterCall('events', 'list', { api: 'v1', resource: 'Event', namespace: asString(field(args[0], 'namespace')) }),
  logs: (args) =>
    clusterCall('logs', 'get', {
      api: 'v1',
      resource: 'Pod',
      name: asString(field(args[0], 'pod')),
      namespace: asString(field(args[0], 'namespace')),
    }),
  dryRunApply: about('dryRunApply', 'patch'),
  apply: about('apply', 'patch'),
  dryRunCreate: about('dryRunCreate', 'create'),
  create: about('create', 'create'),
  dryRunPatch: about('dryRunPatch', 'patch'),
  patch: about('patch', 'patch'),
  dryRunDelete: about('dryRunDelete', 'delete'),
  delete: about('delete', 'delete'),
  waitFor: about('waitFor', 'watch'),
};

/**
 * ClusterClient with one span per API call carrying `k8s.api`, `k8s.method`, `k8s.operation`, `k8s.resource`;
 * with `actingAs` (SVC_KUBE_IMPERSONATE), also `svc.kube.identity`: the user the call impersonates, or `svc`.
 */
export function tracedClusterClient(inner: ClusterClient, tracer: Tracer, actingAs?: () => string): ClusterClient {
  if (!actingAs) return traceMethods(inner, tracer, CLUSTER_PLAN);
  const plan = Object.fromEntries(
    Object.entries(CLUSTER_PLAN).map(([name, span]) => [
      name,
      (args: unknown[]): CallSpan => {
        const call = span(args);
        return { ...call, attributes: { ...call.attributes, 'svc.kube.identity': actingAs() } };
      },
    ]),
  );
  return traceMethods(inner, tracer, plan);
}
