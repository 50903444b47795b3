/**
 * What the Kubernetes API stand-in serves: discovery documents (RESOURCES) and
 * the OpenAPI v3 index over the documents of kube-openapi-docs.ts, in the real
 * wire shapes. Served kinds: v1 Pod, Event, Namespace, Secret, ConfigMap,
 * Service, PersistentVolumeClaim, ServiceAccount, ResourceQuota, LimitRange, Node
 * (cluster-scoped); autoscaling/v2 HorizontalPodAutoscaler; networking.k8s.io/v1
 * NetworkPolicy; storage.k8s.io/v1 StorageClass (cluster-scoped); rbac.authorization.k8s.io/v1
 * ClusterRole, ClusterRoleBinding, Role, RoleBinding; apps/v1 Deployment, ReplicaSet, StatefulSet;
 * batch/v1 CronJob; example.com/v1 Widget (a CRD); metrics.k8s.io/v1beta1 is an
 * aggregated API whose backend is down (503).
 */
import { OPENAPI_DOCS } from './kube-openapi-docs.js';

export interface FakeResource {
  name: string;
  singularName: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
}

const RW = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** groupVersion -> resources, as `/api/v1` and `/apis/<g>/<v>` list them. */
export const RESOURCES: Record<string, FakeResource[]> = {
  v1: [
    { name: 'pods', singularName: 'pod', kind: 'Pod', namespaced: true, verbs: RW, shortNames: ['po'] },
    { name: 'pods/log', singularName: '', kind: 'Pod', namespaced: true, verbs: ['get'] },
    { name: 'pods/status', singularName: '', kind: 'Pod', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'events', singularName: 'event', kind: 'Event', namespaced: true, verbs: RW, shortNames: ['ev'] },
    { name: 'namespaces', singularName: 'namespace', kind: 'Namespace', namespaced: false, verbs: RW, shortNames: ['ns'] },
    { name: 'secrets', singularName: 'secret', kind: 'Secret', namespaced: true, verbs: RW },
    { name: 'configmaps', singularName: 'configmap', kind: 'ConfigMap', namespaced: true, verbs: RW, shortNames: ['cm'] },
    { name: 'services', singularName: 'service', kind: 'Service', namespaced: true, verbs: RW.filter((v) => v !== 'deletecollection'), shortNames: ['svc'] },
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
    { name: 'deployments', singularName: 'deployment', kind: 'Deployment', namespaced: true, verbs: RW, shortNames: ['deploy'] },
    { name: 'deployments/status', singularName: '', kind: 'Deployment', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'replicasets', singularName: 'replicaset', kind: 'ReplicaSet', namespaced: true, verbs: RW, shortNames: ['rs'] },
    { name: 'replicasets/status', singularName: '', kind: 'ReplicaSet', namespaced: true, verbs: ['get', 'patch', 'update'] },
    { name: 'statefulsets', singularName: 'statefulset', kind: 'StatefulSet', namespaced: true, verbs: RW, shortNames: ['sts'] },
    { name: 'statefulsets/status', singularName: '', kind: 'StatefulSet', namespaced: true, verbs: ['get', 'patch', 'update'] },
  ],
  'batch/v1': [
    { name: 'cronjobs', singularName: 'cronjob', kind: 'CronJob', namespaced: true, verbs: RW, shortNames: ['cj'] },
    { name: 'cronjobs/status', singularName: '', kind: 'CronJob', namespaced: true, verbs: ['get', 'patch', 'update'] },
  ],
  'autoscaling/v2': [
    {
      name: 'horizontalpodautoscalers',
      singularName: 'horizontalpodautoscaler',
      kind: 'HorizontalPodAutoscaler',
      namespaced: true,
      verbs: RW,
      shortNames: ['hpa'],
    },
    { name: 'horizontalpodautoscalers/status', singularName: '', kind: 'HorizontalPodAutoscaler', namespaced: true, verbs: ['get', 'patch', 'update'] },
  ],
  'networking.k8s.io/v1': [
    { name: 'networkpolicies', singularName: 'networkpolicy', kind: 'NetworkPolicy', namespaced: true, verbs: RW, shortNames: ['netpol'] },
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

export function apiGroupList() {
  const groups = new Map<string, string[]>();
  for (const gv of Object.keys(RESOURCES)) {
    if (!gv.includes('/')) continue;
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

export { OPENAPI_DOCS };

export function openApiIndex() {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const key of Object.keys(OPENAPI_DOCS)) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${key.length.toString(16).padStart(8, 'A')}` };
  return { paths };
}
