/** What the fake API server serves: discovery documents and OpenAPI v3 documents in the real wire shapes. */

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
  ],
  'apps/v1': [
    { name: 'deployments', singularName: 'deployment', kind: 'Deployment', namespaced: true, verbs: RW, shortNames: ['deploy'] },
    { name: 'deployments/status', singularName: '', kind: 'Deployment', namespaced: true, verbs: ['get', 'patch', 'update'] },
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

const ref = (name: string, description: string) => ({ allOf: [{ $ref: `#/components/schemas/${name}` }], description, default: {} });
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const objectMeta = {
  description: 'ObjectMeta is metadata that all persisted resources must have.',
  type: 'object',
  properties: { name: { type: 'string', description: 'Name must be unique within a namespace.' }, namespace: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string', default: '' } } },
};

/** One OpenAPI v3 document per group version, keyed by the index path (`apis/apps/v1`). */
export const OPENAPI_DOCS: Record<string, Record<string, unknown>> = {
  'apis/apps/v1': {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.31.0' },
    paths: {},
    components: {
      schemas: {
        'io.k8s.api.apps.v1.Deployment': {
          description: 'Deployment enables declarative updates for Pods and ReplicaSets.',
          type: 'object',
          properties: {
            apiVersion: { type: 'string' },
            kind: { type: 'string' },
            metadata: ref(META, 'Standard object metadata.'),
            spec: ref('io.k8s.api.apps.v1.DeploymentSpec', 'Specification of the desired behavior of the Deployment.'),
          },
          'x-kubernetes-group-version-kind': [{ group: 'apps', kind: 'Deployment', version: 'v1' }],
        },
        'io.k8s.api.apps.v1.DeploymentSpec': {
          type: 'object',
          required: ['selector', 'template'],
          properties: {
            replicas: { type: 'integer', format: 'int32', description: 'Number of desired pods.' },
            template: ref('io.k8s.api.core.v1.PodTemplateSpec', 'Template describes the pods that will be created.'),
          },
        },
        'io.k8s.api.core.v1.PodTemplateSpec': { type: 'object', properties: { metadata: ref(META, 'metadata') } },
        [META]: objectMeta,
      },
    },
  },
  'apis/example.com/v1': {
    openapi: '3.0.0',
    info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' },
    paths: {},
    components: {
      schemas: {
        'com.example.v1.Widget': {
          type: 'object',
          properties: { metadata: ref(META, 'metadata'), spec: { $ref: '#/components/schemas/com.example.v1.Node' } },
          'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'Widget', version: 'v1' }],
        },
        // a schema that refers to itself, like JSONSchemaProps: inlining must stop
        'com.example.v1.Node': { type: 'object', properties: { size: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/components/schemas/com.example.v1.Node' } } } },
        [META]: objectMeta,
      },
    },
  },
};

export function openApiIndex() {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const key of Object.keys(OPENAPI_DOCS)) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${key.length.toString(16).padStart(8, 'A')}` };
  return { paths };
}
