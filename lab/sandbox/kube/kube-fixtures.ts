/**
 * What the Kubernetes API stand-in serves: discovery documents (RESOURCES) and
 * the OpenAPI v3 index over the documents of kube-openapi-docs.ts, in the real
 * wire shapes. Served kinds: v1 Pod, Event, Namespace, Secret, ConfigMap,
 * Service, PersistentVolumeClaim, ServiceAccount, ResourceQuota, LimitRange, Node
 * (cluster-scoped); autoscaling/v2 HorizontalPodAutoscaler; networking.k8s.io/v1
 * NetworkPolicy, Ingress; storage.k8s.io/v1 StorageClass (cluster-scoped); rbac.authorization.k8s.io/v1
 * ClusterRole, ClusterRoleBinding, Role, RoleBinding; apps/v1 Deployment, ReplicaSet, StatefulSet,
 * DaemonSet; batch/v1 CronJob, Job; policy/v1 PodDisruptionBudget; example.com/v1 Widget (a CRD); metrics.k8s.io/v1beta1 is an
 * aggregated API whose backend is down (503), advertised only by the tests'
 * cluster (`KubeApiServer.advertiseBroken`). Workloads answer their `scale`
 * subresource (autoscaling/v1 Scale); the kinds `kubectl get all` shows carry
 * the `all` category.
 */
import { OPENAPI_DOCS as SCHEMA_DOCS } from './kube-openapi-docs.js';
import { openApiV2, resourcePaths } from './kube-openapi-paths.js';

export interface FakeResource {
  name: string;
  singularName: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  /** `all` for the kinds `kubectl get all` shows, as kube-apiserver lists them. */
  categories?: string[];
  /** A subresource answering another kind (`deployments/scale` answers autoscaling/v1 Scale). */
  group?: string;
  version?: string;
}

const ALL = ['all'];
const scale = (of: string) => ({
  name: `${of}/scale`,
  singularName: '',
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  namespaced: true,
  verbs: ['get', 'patch', 'update'],
});

const RW = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** groupVersion -> resources, as `/api/v1` and `/apis/<g>/<v>` list them. */
export const RESOURCES: Record<string, FakeResource[]> = {
  v1: [
    { name: 'pods', singularName: 'pod', kind: 'Pod', namespaced: true, verbs: RW, shortNames: ['po'], categories: ALL },
    { name: 'pods/log', singularName: '', kind: 'Pod', namespaced: true, verbs: ['get'] },
    { name: 'pods/status', singularName: '', kind: 'Pod', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'events', singularName: 'event', kind: 'Event', namespaced: true, verbs: RW, shortNames: ['ev'] },
    { name: 'namespaces', singularName: 'namespace', kind: 'Namespace', namespaced: false, verbs: RW, shortNames: ['ns'] },
    { name: 'secrets', singularName: 'secret', kind: 'Secret', namespaced: true, verbs: RW },
    { name: 'configmaps', singularName: 'configmap', kind: 'ConfigMap', namespaced: true, verbs: RW, shortNames: ['cm'] },
    {
      name: 'services',
      singularName: 'service',
      kind: 'Service',
      namespaced: true,
      verbs: RW.filter((v) => v !== 'deletecollection'),
      shortNames: ['svc'],
      categories: ALL,
    },
    { name: 'services/status', singularName: '', kind: 'Service', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'persistentvolumeclaims', singularName: 'persistentvolumeclaim', kind: 'PersistentVolumeClaim', namespaced: true, verbs: RW, shortNames: ['pvc'] },
    { name: 'persistentvolumeclaims/status', singularName: '', kind: 'PersistentVolumeClaim', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'serviceaccounts', singularName: 'serviceaccount', kind: 'ServiceAccount', namespaced: true, verbs: RW, shortNames: ['sa'] },
    { name: 'resourcequotas', singularName: 'resourcequota', kind: 'ResourceQuota', namespaced: true, verbs: RW, shortNames: ['quota'] },
    { name: 'resourcequotas/status', singularName: '', kind: 'ResourceQuota', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'limitranges', singularName: 'limitrange', kind: 'LimitRange', namespaced: true, verbs: RW, shortNames: ['limits'] },
    { name: 'nodes', singularName: 'node', kind: 'Node', namespaced: false, verbs: RW.filter((v) => v !== 'deletecollection'), shortNames: ['no'] },
    { name: 'nodes/status', singularName: '', kind: 'Node', namespaced: false, verbs: ['get', 'patch', 'update'] },
  ],
  'apps/v1': [
    { name: 'deployments', singularName: 'deployment', kind: 'Deployment', namespaced: true, verbs: RW, shortNames: ['deploy'], categories: ALL },
    scale('deployments'),
    { name: 'deployments/status', singularName: '', kind: 'Deployment', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'replicasets', singularName: 'replicaset', kind: 'ReplicaSet', namespaced: true, verbs: RW, shortNames: ['rs'], categories: ALL },
    scale('replicasets'),
    { name: 'replicasets/status', singularName: '', kind: 'ReplicaSet', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'statefulsets', singularName: 'statefulset', kind: 'StatefulSet', namespaced: true, verbs: RW, shortNames: ['sts'], categories: ALL },
    scale('statefulsets'),
    { name: 'statefulsets/status', singularName: '', kind: 'StatefulSet', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'daemonsets', singularName: 'daemonset', kind: 'DaemonSet', namespaced: true, verbs: RW, shortNames: ['ds'], categories: ALL },
    { name: 'daemonsets/status', singularName: '', kind: 'DaemonSet', namespaced: true, verbs: ['get', 'patch', 'update'] },
  ],
  'batch/v1': [
    { name: 'cronjobs', singularName: 'cronjob', kind: 'CronJob', namespaced: true, verbs: RW, shortNames: ['cj'], categories: ALL },
    { name: 'cronjobs/status', singularName: '', kind: 'CronJob', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'jobs', singularName: 'job', kind: 'Job', namespaced: true, verbs: RW, categories: ALL },
    { name: 'jobs/status', singularName: '', kind: 'Job', namespaced: true, verbs: ['get', 'patch', 'update'] },
  ],
  'policy/v1': [
    { name: 'poddisruptionbudgets', singularName: 'poddisruptionbudget', kind: 'PodDisruptionBudget', namespaced: true, verbs: RW, shortNames: ['pdb'] },
    { name: 'poddisruptionbudgets/status', singularName: '', kind: 'PodDisruptionBudget', namespaced: true, verbs: ['get', 'patch', 'update'] },
  ],
  'autoscaling/v2': [
    {
      name: 'horizontalpodautoscalers',
      singularName: 'horizontalpodautoscaler',
      kind: 'HorizontalPodAutoscaler',
      namespaced: true,
      verbs: RW,
      shortNames: ['hpa'],
      categories: ALL,
    },
    { name: 'horizontalpodautoscalers/status', singularName: '', kind: 'HorizontalPodAutoscaler', namespaced: true, verbs: ['get', 'patch', 'update'] },
  ],
  'networking.k8s.io/v1': [
    { name: 'networkpolicies', singularName: 'networkpolicy', kind: 'NetworkPolicy', namespaced: true, verbs: RW, shortNames: ['netpol'] },
    { name: 'ingresses', singularName: 'ingress', kind: 'Ingress', namespaced: true, verbs: RW, shortNames: ['ing'] },
  ],
  'storage.k8s.io/v1': [{ name: 'storageclasses', singularName: 'storageclass', kind: 'StorageClass', namespaced: false, verbs: RW, shortNames: ['sc'] }],
  'rbac.authorization.k8s.io/v1': [
    { name: 'clusterroles', singularName: 'clusterrole', kind: 'ClusterRole', namespaced: false, verbs: RW },
    { name: 'clusterrolebindings', singularName: 'clusterrolebinding', kind: 'ClusterRoleBinding', namespaced: false, verbs: RW },
    { name: 'roles', singularName: 'role', kind: 'Role', namespaced: true, verbs: RW },
    { name: 'rolebindings', singularName: 'rolebinding', kind: 'RoleBinding', namespaced: true, verbs: RW },
  ],
  'example.com/v1': [{ name: 'widgets', singularName: 'widget', kind: 'Widget', namespaced: true, verbs: RW }],
  // an aggregated API whose backend is down: discovery of it answers 503
  'metrics.k8s.io/v1beta1': [],
};

export const BROKEN_GROUP_VERSIONS = new Set(['metrics.k8s.io/v1beta1']);

/**
 * `/apis`: every group version with resources, and the broken aggregated
 * ones when `withBroken` (the tests' cluster advertises metrics.k8s.io and
 * answers 503 for it; the sandbox advertises only what it serves).
 */
export function apiGroupList(withBroken = true) {
  const groups = new Map<string, string[]>();
  for (const gv of Object.keys(RESOURCES)) {
    if (!gv.includes('/')) continue;
    if (RESOURCES[gv].length === 0 && !(withBroken && BROKEN_GROUP_VERSIONS.has(gv))) continue;
    const [g] = gv.split('/');
    groups.set(g, [...(groups.get(g) ?? []), gv]);
  }
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups].map(([name, gvs]) => ({
      name,
      versions: gvs.map((gv) => ({ groupVersion: gv, version: gv.split('/')[1] })),
      preferredVersion: { groupVersion: gvs[0], version: gvs[0].split('/')[1] },
    })),
  };
}

export function apiResourceList(groupVersion: string) {
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources: RESOURCES[groupVersion] };
}

/** The OpenAPI v3 documents (kube-openapi-docs.ts) with the paths of the resources each group version serves. */
export const OPENAPI_DOCS: Record<string, Record<string, unknown>> = Object.fromEntries(
  Object.entries(SCHEMA_DOCS).map(([key, doc]) => [key, { ...doc, paths: resourcePaths(key, doc, RESOURCES[key.replace(/^apis?\//, '')] ?? []) }]),
);

/** `/openapi/v2`, built from the same documents. */
export const OPENAPI_V2 = openApiV2(OPENAPI_DOCS);

export function openApiIndex() {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const key of Object.keys(OPENAPI_DOCS)) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${key.length.toString(16).padStart(8, 'A')}` };
  return { paths };
}
