import { RESOURCES, type FakeResource } from './kube-fixtures.js';

const RW = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * Kinds the write guard's tests need, as the API server's discovery serves
 * them: v1 Node and scheduling.k8s.io PriorityClass (cluster-scoped),
 * networking.k8s.io NetworkPolicy and Ingress, batch Job, and custom
 * resources as their CRDs make the server serve them: an Argo Rollout and a
 * Knative Service (pod templates), an Argo Workflow (a `container` per
 * template) and a Tekton TaskRun (`steps`), an Istio AuthorizationPolicy,
 * Kyverno's ClusterPolicy (cluster-scoped) and Policy, and acme.io
 * BuildJob, a kind no one knows.
 */
const GUARD_RESOURCES: Record<string, FakeResource[]> = {
  v1: [{ name: 'nodes', singularName: 'node', kind: 'Node', namespaced: false, verbs: RW, shortNames: ['no'] }],
  'networking.k8s.io/v1': [
    { name: 'networkpolicies', singularName: 'networkpolicy', kind: 'NetworkPolicy', namespaced: true, verbs: RW, shortNames: ['netpol'] },
    { name: 'ingresses', singularName: 'ingress', kind: 'Ingress', namespaced: true, verbs: RW, shortNames: ['ing'] },
  ],
  'batch/v1': [{ name: 'jobs', singularName: 'job', kind: 'Job', namespaced: true, verbs: RW }],
  'scheduling.k8s.io/v1': [{ name: 'priorityclasses', singularName: 'priorityclass', kind: 'PriorityClass', namespaced: false, verbs: RW, shortNames: ['pc'] }],
  'argoproj.io/v1alpha1': [
    { name: 'rollouts', singularName: 'rollout', kind: 'Rollout', namespaced: true, verbs: RW, shortNames: ['ro'] },
    { name: 'workflows', singularName: 'workflow', kind: 'Workflow', namespaced: true, verbs: RW, shortNames: ['wf'] },
  ],
  'tekton.dev/v1': [{ name: 'taskruns', singularName: 'taskrun', kind: 'TaskRun', namespaced: true, verbs: RW, shortNames: ['tr'] }],
  'security.istio.io/v1': [
    { name: 'authorizationpolicies', singularName: 'authorizationpolicy', kind: 'AuthorizationPolicy', namespaced: true, verbs: RW, shortNames: ['ap'] },
  ],
  'acme.io/v1': [{ name: 'buildjobs', singularName: 'buildjob', kind: 'BuildJob', namespaced: true, verbs: RW }],
  'serving.knative.dev/v1': [{ name: 'services', singularName: 'service', kind: 'Service', namespaced: true, verbs: RW, shortNames: ['ksvc'] }],
  'kyverno.io/v1': [
    { name: 'clusterpolicies', singularName: 'clusterpolicy', kind: 'ClusterPolicy', namespaced: false, verbs: RW, shortNames: ['cpol'] },
    { name: 'policies', singularName: 'policy', kind: 'Policy', namespaced: true, verbs: RW, shortNames: ['pol'] },
  ],
};

/** Makes the Kubernetes stand-in serve those kinds too (added to a group version it already serves, or a new one); returns the undo. */
export function serveGuardKinds(): () => void {
  const added: [string, FakeResource[]][] = [];
  for (const [gv, resources] of Object.entries(GUARD_RESOURCES)) {
    const fresh = resources.filter((r) => !RESOURCES[gv]?.some((x) => x.name === r.name));
    if (!RESOURCES[gv]) RESOURCES[gv] = [];
    RESOURCES[gv].push(...fresh);
    added.push([gv, fresh]);
  }
  return () => {
    for (const [gv, fresh] of added) {
      RESOURCES[gv] = RESOURCES[gv].filter((r) => !fresh.includes(r));
      if (RESOURCES[gv].length === 0 && !(gv in GUARD_BASE)) delete RESOURCES[gv];
    }
  };
}

const GUARD_BASE: Record<string, true> = Object.fromEntries(Object.keys(RESOURCES).map((gv) => [gv, true]));
