import type { FieldCondition } from '../../domain/evaluation/scenario.js';
import type { KubeCluster, Obj } from './stand-in.js';
import { selects } from './kube/kube-scheduler.js';

/**
 * Whether the cluster's NetworkPolicies let a connection through, as
 * Kubernetes defines them ("Network Policies"), so that every policy with the
 * same effect passes: another `from` entry, a new policy beside the old one, a
 * `matchExpressions` instead of `matchLabels`, a named port.
 *
 * - A pod is isolated for ingress (egress) once a policy of its namespace
 *   selects it and lists that type in `policyTypes`; without `policyTypes` every
 *   policy counts for ingress, and for egress when it has egress rules.
 * - An isolated pod takes (makes) the connection when some rule of a policy
 *   selecting it matches the peer and the port. A connection passes when the
 *   source's egress and the destination's ingress both let it.
 * - A peer matches `podSelector` (in the policy's namespace),
 *   `namespaceSelector` (every pod of the namespaces whose labels match, which
 *   always carry `kubernetes.io/metadata.name`), both (those pods of those
 *   namespaces), or an `ipBlock`. The judge knows no pod address, so an
 *   `ipBlock` matches a pod only when its CIDR is a `/0` (every address); its
 *   `except` ranges are taken to lie outside the cluster.
 * - A port matches by number (up to `endPort`) or by the name of the
 *   destination pod's container port, and by protocol (default TCP); a rule
 *   without ports takes every port.
 */

type Traffic = NonNullable<FieldCondition['allows']>;
type Peer = NonNullable<Traffic['from']>;
type Direction = 'Ingress' | 'Egress';

/** One end of a connection: a pod's namespace, labels and container ports (to resolve a named port). */
interface Endpoint {
  namespace: string;
  labels: Record<string, string>;
  ports: Obj[];
}

/** Whether the connection the condition describes, to or from the workload's pods, gets through both ends' policies; false when an end does not exist. */
export function trafficAllowed(c: KubeCluster, workload: Obj, traffic: Traffic): boolean {
  const ns: string = workload.metadata.namespace ?? 'default';
  const own = endpointOf(workload);
  const other = peerEndpoint(c, traffic.from ?? traffic.to!, ns);
  if (!own || !other) return false;
  const [src, dst] = traffic.from ? [other, own] : [own, other];
  const policies = [...c.objects.values()].filter((o) => o.kind === 'NetworkPolicy');
  return admits(c, policies, 'Egress', src, dst, traffic) && admits(c, policies, 'Ingress', dst, src, traffic);
}

/** The pods a workload makes, from its pod template; undefined when it has none. */
function endpointOf(workload: Obj): Endpoint | undefined {
  const template = workload.spec?.template;
  if (!template) return undefined;
  const containers: Obj[] = [...(template.spec?.containers ?? []), ...(template.spec?.initContainers ?? [])];
  return {
    namespace: workload.metadata.namespace ?? 'default',
    labels: (template.metadata?.labels ?? {}) as Record<string, string>,
    ports: containers.flatMap((k) => (k.ports ?? []) as Obj[]),
  };
}

function peerEndpoint(c: KubeCluster, peer: Peer, ns: string): Endpoint | undefined {
  const namespace = peer.namespace ?? ns;
  if (peer.labels) return { namespace, labels: peer.labels, ports: [] };
  const w = peer.workload!;
  const live = [...c.objects.values()].find((o) => o.kind === w.kind && o.metadata.name === w.name && (o.metadata.namespace ?? 'default') === namespace);
  return live && endpointOf(live);
}

/** The policy types a policy governs: its `policyTypes`, else Ingress, and Egress when it has egress rules. */
function policyTypes(p: Obj): Direction[] {
  const listed: Direction[] | undefined = p.spec?.policyTypes;
  if (listed?.length) return listed;
  return ['Ingress', ...(p.spec?.egress?.length ? (['Egress'] as const) : [])];
}

/** Whether `self`'s policies for one direction let the connection with `peer` through (all of it when none isolates `self`). */
function admits(c: KubeCluster, policies: Obj[], direction: Direction, self: Endpoint, peer: Endpoint, traffic: Traffic): boolean {
  const isolating = policies.filter(
    (p) => (p.metadata.namespace ?? 'default') === self.namespace && selects(p.spec?.podSelector, self.labels) && policyTypes(p).includes(direction),
  );
  if (!isolating.length) return true;
  const destination = direction === 'Ingress' ? self : peer;
  return isolating.some((p) =>
    ((direction === 'Ingress' ? p.spec?.ingress : p.spec?.egress) ?? []).some(
      (rule: Obj) =>
        peersMatch(c, direction === 'Ingress' ? rule.from : rule.to, p.metadata.namespace ?? 'default', peer) &&
        portsMatch(rule.ports, destination, traffic.port, traffic.protocol),
    ),
  );
}

/** A namespace's labels: its Namespace object's, with the `kubernetes.io/metadata.name` the API server always sets. */
function namespaceLabels(c: KubeCluster, ns: string): Record<string, string> {
  const o = c.objects.get(c.pathOf('v1', 'Namespace', ns));
  return { ...((o?.metadata.labels ?? {}) as Record<string, string>), 'kubernetes.io/metadata.name': ns };
}

/** Whether a rule's `from` (`to`) list admits the peer: an absent or empty list admits every peer. */
function peersMatch(c: KubeCluster, peers: Obj[] | undefined, policyNamespace: string, peer: Endpoint): boolean {
  if (!peers?.length) return true;
  return peers.some((p) => {
    if (p.ipBlock) return typeof p.ipBlock.cidr === 'string' && p.ipBlock.cidr.endsWith('/0');
    if (!p.podSelector && !p.namespaceSelector) return false;
    const inNamespace = p.namespaceSelector ? selects(p.namespaceSelector, namespaceLabels(c, peer.namespace)) : peer.namespace === policyNamespace;
    return inNamespace && (!p.podSelector || selects(p.podSelector, peer.labels));
  });
}

/** Whether a rule's ports take the destination port: by number (to `endPort`) or by the destination's container port name, and protocol. */
function portsMatch(ports: Obj[] | undefined, destination: Endpoint, port: number, protocol: string): boolean {
  if (!ports?.length) return true;
  return ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== protocol) return false;
    if (p.port === undefined) return true;
    if (typeof p.port === 'number') return port === p.port || (typeof p.endPort === 'number' && port > p.port && port <= p.endPort);
    return destination.ports.some((k) => k.name === p.port && k.containerPort === port && (k.protocol ?? 'TCP') === protocol);
  });
}
