import type { FieldCondition } from '../../domain/evaluation/scenario.js';
import type { KubeCluster, Obj } from './stand-in.js';

/**
 * Whether RBAC lets a workload's ServiceAccount make a request, as
 * kube-apiserver's RBAC authorizer decides it from the cluster's Roles,
 * ClusterRoles and their bindings ("Using RBAC Authorization"), so that every
 * grant with the same effect passes: a fixed subject, another binding, a
 * `User` subject `system:serviceaccount:ns:name`, the `system:serviceaccounts:ns`
 * group, a built-in ClusterRole bound in the namespace.
 *
 * - The identity is the pod template's `serviceAccountName` (or the deprecated
 *   `serviceAccount`; else `default`). A ServiceAccount that does not exist
 *   makes no pods (the `default` one always exists), and a pod without a
 *   mounted token (`automountServiceAccountToken: false` on the pod, or on the
 *   ServiceAccount when the pod does not say) calls the API as nobody.
 * - A RoleBinding in the request's namespace or any ClusterRoleBinding grants
 *   its role's rules to its subjects; a request across every namespace (or to
 *   a cluster-scoped resource) only through a ClusterRoleBinding. A
 *   ServiceAccount subject without a namespace means the binding's.
 * - A rule allows the request when its verbs, apiGroups and resources list it
 *   or `*` (`*\/log` for a subresource), and its `resourceNames`, when set,
 *   name the requested object. ClusterRoles the cluster does not hold are the
 *   API server's defaults (cluster-admin, admin, edit, view, in short);
 *   aggregation rules are not followed.
 */

type Access = NonNullable<FieldCondition['can']>;

/** Every namespaced resource the default view, edit and admin ClusterRoles cover, by API group (secrets apart: view does not read them). */
const NAMESPACED: Record<string, string[]> = {
  '': [
    'pods',
    'pods/log',
    'pods/status',
    'services',
    'endpoints',
    'configmaps',
    'persistentvolumeclaims',
    'replicationcontrollers',
    'serviceaccounts',
    'events',
    'resourcequotas',
    'limitranges',
  ],
  apps: ['deployments', 'deployments/scale', 'replicasets', 'statefulsets', 'daemonsets', 'controllerrevisions'],
  batch: ['jobs', 'cronjobs'],
  autoscaling: ['horizontalpodautoscalers'],
  policy: ['poddisruptionbudgets'],
  'networking.k8s.io': ['ingresses', 'networkpolicies'],
  'discovery.k8s.io': ['endpointslices'],
};
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const rulesOver = (verbs: string[]) => Object.entries(NAMESPACED).map(([group, resources]) => ({ apiGroups: [group], resources, verbs }));
const VIEW = rulesOver(READ);
const EDIT = [
  ...rulesOver([...READ, ...WRITE]),
  { apiGroups: [''], resources: ['secrets'], verbs: [...READ, ...WRITE] },
  { apiGroups: [''], resources: ['pods/exec', 'pods/attach', 'pods/portforward', 'pods/eviction'], verbs: ['create', 'get'] },
  { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
];

/** The ClusterRoles kube-apiserver creates at startup, in short. */
const DEFAULT_CLUSTER_ROLES: Record<string, Obj[]> = {
  'cluster-admin': [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  admin: [...EDIT, { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: [...READ, ...WRITE] }],
  edit: EDIT,
  view: VIEW,
};

/** Whether the workload's pods (or the condition's ServiceAccount) may make the request. */
export function mayAccess(c: KubeCluster, workload: Obj, access: Access): boolean {
  const ns: string = workload.metadata.namespace ?? 'default';
  const sa = access.serviceAccount ?? podIdentity(c, workload, ns);
  if (sa === undefined) return false;
  const user = `system:serviceaccount:${ns}:${sa}`;
  const groups = ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'];
  const requestNs = access.clusterWide ? undefined : (access.namespace ?? ns);
  return [...c.objects.values()]
    .filter((b) => b.kind === 'ClusterRoleBinding' || (b.kind === 'RoleBinding' && requestNs !== undefined && b.metadata.namespace === requestNs))
    .some((b) => ((b.subjects ?? []) as Obj[]).some((s) => appliesTo(s, b, user, groups)) && roleRules(c, b).some((r) => ruleAllows(r, access)));
}

/** The ServiceAccount the workload's pods call the API as; undefined when they make no pods or carry no token. */
function podIdentity(c: KubeCluster, workload: Obj, ns: string): string | undefined {
  const spec: Obj = (workload.kind === 'CronJob' ? workload.spec?.jobTemplate?.spec?.template?.spec : workload.spec?.template?.spec) ?? {};
  const name: string = spec.serviceAccountName || spec.serviceAccount || 'default';
  const account = c.objects.get(c.pathOf('v1', 'ServiceAccount', name, ns));
  if (!account && name !== 'default') return undefined;
  const mounted = spec.automountServiceAccountToken ?? account?.automountServiceAccountToken ?? true;
  return mounted === false ? undefined : name;
}

/** Whether a binding's subject is the ServiceAccount's user or one of its groups. */
function appliesTo(subject: Obj, binding: Obj, user: string, groups: string[]): boolean {
  if (subject.kind === 'User') return subject.name === user;
  if (subject.kind === 'Group') return groups.includes(subject.name);
  if (subject.kind !== 'ServiceAccount') return false;
  const ns = subject.namespace || binding.metadata.namespace;
  return !!ns && user === `system:serviceaccount:${ns}:${subject.name}`;
}

/** The rules of the role a binding refers to (a RoleBinding's Role in its own namespace); none when it does not exist. */
function roleRules(c: KubeCluster, binding: Obj): Obj[] {
  const ref: Obj = binding.roleRef ?? {};
  if (ref.kind === 'Role' && binding.kind !== 'RoleBinding') return [];
  if (ref.kind !== 'Role' && ref.kind !== 'ClusterRole') return [];
  const role = c.objects.get(c.pathOf('rbac.authorization.k8s.io/v1', ref.kind, String(ref.name), binding.metadata.namespace));
  if (role) return (role.rules ?? []) as Obj[];
  return ref.kind === 'ClusterRole' ? (DEFAULT_CLUSTER_ROLES[ref.name] ?? []) : [];
}

/** Whether one policy rule allows the request. */
function ruleAllows(rule: Obj, access: Access): boolean {
  const has = (list: unknown, value: string) => Array.isArray(list) && (list.includes('*') || list.includes(value));
  const [, sub] = access.resource.split('/');
  const resources: unknown = rule.resources;
  const resourceOk = has(resources, access.resource) || (sub !== undefined && Array.isArray(resources) && resources.includes(`*/${sub}`));
  const names: string[] = rule.resourceNames ?? [];
  const nameOk = names.length === 0 || (access.name !== undefined && names.includes(access.name));
  return has(rule.verbs, access.verb) && has(rule.apiGroups, access.group) && resourceOk && nameOk;
}
