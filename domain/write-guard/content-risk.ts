import type { KubeObject } from '../cluster/kube-types.js';
import { asJsonObject, isJsonObject, type JsonObject } from '../json-object.js';
import { containersOf, findPodSpecs, imageRegistry, podSpecDangers } from './pod-specs.js';
import type { ResolvedTarget } from './resolved-target.js';

/** Reasons found in a write, by the level they raise the risk to. */
export interface RiskFindings {
  high: string[];
  medium: string[];
}

const SENSITIVE: Record<string, string[]> = {
  '': ['Secret', 'ServiceAccount', 'PersistentVolume', 'Namespace', 'Node'],
  'apiextensions.k8s.io': ['CustomResourceDefinition'],
  'apiregistration.k8s.io': ['APIService'],
  'certificates.k8s.io': ['CertificateSigningRequest'],
  'scheduling.k8s.io': ['PriorityClass'],
  'node.k8s.io': ['RuntimeClass'],
};
const WHOLE_GROUPS: Record<string, string> = {
  'rbac.authorization.k8s.io': 'access control (RBAC)',
  'admissionregistration.k8s.io': 'admission (webhooks and admission policies)',
  'kyverno.io': 'a Kyverno policy',
};
const policyEngine = (group: string) =>
  group.endsWith('.kyverno.io')
    ? 'a Kyverno policy'
    : group === 'gatekeeper.sh' || group.endsWith('.gatekeeper.sh')
      ? 'a Gatekeeper policy or constraint'
      : undefined;

/** Namespaces whose objects keep the cluster itself running: any write there is high risk. */
export const SYSTEM_NAMESPACES: ReadonlySet<string> = new Set(['kube-system', 'kube-public', 'kube-node-lease']);

/**
 * Why the kind and place alone make a write high risk (empty when they do
 * not): cluster-scoped; RBAC; admission webhooks and policies, Kyverno and
 * Gatekeeper objects; any NetworkPolicy (of any group); Secrets,
 * ServiceAccounts, PersistentVolumes, Namespaces, Nodes, CRDs, APIServices,
 * CSRs, PriorityClasses, RuntimeClasses; a protected namespace (system
 * namespaces, svc's own). Automatic mode never writes such a target.
 */
export function targetFindings(t: ResolvedTarget, protectedNamespaces: readonly string[]): string[] {
  const out: string[] = [];
  if (!t.namespaced) out.push(`${t.kind} is cluster-scoped: the change is cluster-wide`);
  const group = WHOLE_GROUPS[t.group] ?? policyEngine(t.group);
  if (group) out.push(`${t.kind} is a sensitive kind: ${group}`);
  if (SENSITIVE[t.group]?.includes(t.kind)) out.push(`${t.kind} is a sensitive kind (access, credentials, scheduling, nodes, volumes or API definitions)`);
  if (/NetworkPolicy$/.test(t.kind)) out.push(`${t.kind} changes what may talk to what`);
  if (t.namespace && protectedNamespaces.includes(t.namespace))
    out.push(SYSTEM_NAMESPACES.has(t.namespace) ? `${t.namespace} is a system namespace` : `${t.namespace} is svc's own namespace`);
  return out;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
const sorted = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sorted)
    : isJsonObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sorted(v[k])]),
        )
      : v;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * What the object as the API server would store it (`after`, from the dry
 * run) does, compared with the live object (`live`, null when created):
 * - high: a changed pod spec (found by shape in any kind) that is privileged,
 *   adds capabilities, uses host namespaces, hostPath or hostPort, runs as
 *   user 0 or targets control-plane nodes; an image from a registry neither
 *   the live object nor SVC_IMAGE_REGISTRIES (`registries`) uses; a core
 *   Service's exposure (LoadBalancer, NodePort, externalIPs, ExternalName)
 *   set or changed; finalizers, ownerReferences or the last-applied
 *   annotation changed; replicas to zero;
 * - medium: any other pod spec change (a new image tag included), a created
 *   object that runs pods.
 */
export function contentFindings(t: ResolvedTarget, live: KubeObject | null, after: KubeObject, registries: readonly string[]): RiskFindings {
  const high: string[] = [];
  const medium: string[] = [];
  const livePods = new Map(findPodSpecs(live ?? {}).map((p) => [p.path, p.spec]));
  const liveImages = [...livePods.values()].flatMap((s) => containersOf(s).map((c) => String(c.container.image ?? '')));
  const known = new Set([...liveImages.filter(Boolean).map(imageRegistry), ...registries]);
  for (const { path, spec } of findPodSpecs(after)) {
    const before = livePods.get(path);
    if (before && same(before, spec)) continue;
    const where = `the pod spec at ${path}`;
    for (const d of podSpecDangers(spec)) high.push(`${where}: ${d}`);
    medium.push(before ? `changes ${where}: pods are replaced` : `creates ${where}: pods start`);
    const beforeImages = new Map(before ? containersOf(before).map((c) => [`${c.list}/${String(c.container.name)}`, c.container.image]) : []);
    for (const { list, container } of containersOf(spec)) {
      const image = typeof container.image === 'string' ? container.image : '';
      const was = beforeImages.get(`${list}/${String(container.name)}`);
      if (!image || image === was) continue;
      if (!known.has(imageRegistry(image))) high.push(`image ${image} is from registry ${imageRegistry(image)}, new to this object`);
      else medium.push(`image ${String(was ?? '(none)')} -> ${image}`);
    }
  }
  if (t.group === '' && t.kind === 'Service') high.push(...exposure(asJsonObject(live?.spec), asJsonObject(after.spec)));
  const lm = asJsonObject(live?.metadata);
  const am = asJsonObject(after.metadata);
  for (const f of ['finalizers', 'ownerReferences']) if (!same(lm[f] ?? [], am[f] ?? [])) high.push(`changes metadata.${f} (what keeps or removes the object)`);
  if (!same(asJsonObject(lm.annotations)[LAST_APPLIED], asJsonObject(am.annotations)[LAST_APPLIED]))
    high.push(`changes the ${LAST_APPLIED} annotation (what the next kubectl apply will act on)`);
  const replicas = asJsonObject(after.spec).replicas;
  if (replicas === 0 && asJsonObject(live?.spec).replicas !== 0) high.push('scales to zero replicas');
  return { high, medium };
}

function exposure(before: JsonObject, after: JsonObject): string[] {
  const out: string[] = [];
  const type = after.type;
  if ((type === 'LoadBalancer' || type === 'NodePort') && (before.type !== type || !same(before.ports, after.ports)))
    out.push(`exposes the Service outside the cluster (type ${type})`);
  if (Array.isArray(after.externalIPs) && after.externalIPs.length && !same(before.externalIPs, after.externalIPs))
    out.push(`sets externalIPs ${after.externalIPs.map(String).join(', ')}`);
  if (type === 'ExternalName' && (before.type !== type || before.externalName !== after.externalName))
    out.push(`points the Service at ${String(after.externalName)} (ExternalName)`);
  return out;
}
