import type { KubeObject } from '../../../domain/cluster/kube-types.js';
import { RESOURCES } from './kube-fixtures.js';

const RW = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** The GitOps controllers' kinds, as their CRDs make the API server serve them. */
const GITOPS_RESOURCES = {
  'argoproj.io/v1alpha1': [{ name: 'applications', singularName: 'application', kind: 'Application', namespaced: true, verbs: RW, shortNames: ['app'] }],
  'kustomize.toolkit.fluxcd.io/v1': [
    { name: 'kustomizations', singularName: 'kustomization', kind: 'Kustomization', namespaced: true, verbs: RW, shortNames: ['ks'] },
  ],
  'source.toolkit.fluxcd.io/v1': [
    { name: 'gitrepositories', singularName: 'gitrepository', kind: 'GitRepository', namespaced: true, verbs: RW, shortNames: ['gitrepo'] },
  ],
  'helm.toolkit.fluxcd.io/v2': [{ name: 'helmreleases', singularName: 'helmrelease', kind: 'HelmRelease', namespaced: true, verbs: RW, shortNames: ['hr'] }],
};

/** Makes the Kubernetes stand-in serve Argo CD's and Flux's kinds (as if their CRDs were installed); returns the undo. */
export function serveGitopsKinds(): () => void {
  Object.assign(RESOURCES, GITOPS_RESOURCES);
  return () => {
    for (const gv of Object.keys(GITOPS_RESOURCES)) delete RESOURCES[gv];
  };
}

/** An Argo CD Application whose source is `path` of `repoURL`. */
export function argoApplication(name: string, repoURL: string, path: string, targetRevision = 'main'): KubeObject {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: 'argocd' },
    spec: { project: 'default', source: { repoURL, path, targetRevision }, destination: { server: 'https://kubernetes.default.svc', namespace: 'x' } },
  };
}

/** A Flux Kustomization `apps` over a GitRepository `config`. */
export function fluxKustomization(repoURL: string, path: string): KubeObject[] {
  return [
    {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'GitRepository',
      metadata: { name: 'config', namespace: 'flux-system' },
      spec: { interval: '1m', url: repoURL, ref: { branch: 'main' } },
    },
    {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'apps', namespace: 'flux-system' },
      spec: { interval: '10m', path: `./${path}`, prune: true, sourceRef: { kind: 'GitRepository', name: 'config' } },
    },
  ];
}

/** The web app as a team keeps it in git: two documents in one file, with comments. */
export const ALL_YAML = `# web: the shop front end
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: x
spec:
  ports:
    - port: 80 # http
---
# the Deployment (images are pinned by the platform team)
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: x
spec:
  replicas: 1 # one is enough for now
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: app
          image: nginx:9.9-missing
`;
