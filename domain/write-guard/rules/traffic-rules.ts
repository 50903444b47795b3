import { fixed, kinds, verdict, type FieldRule, type RuleInput } from './field-rule.js';

const SERVICE = kinds('', 'Service');
const EXPOSED = new Set(['LoadBalancer', 'NodePort', 'ExternalName']);

/** A Service's type: ClusterIP (or headless) when created is medium; exposure outside the cluster, or any change after, high. */
function serviceType(i: RuleInput) {
  const to = i.change.to;
  if (i.created && (to === 'ClusterIP' || to === undefined)) return verdict('medium', `creates Service ${i.result.metadata.name} (ClusterIP)`);
  if (to === 'ExternalName')
    return verdict('high', `points the Service at ${String(i.result.spec && (i.result.spec as Record<string, unknown>).externalName)} (ExternalName)`);
  return verdict(
    'high',
    EXPOSED.has(String(to)) ? `exposes the Service outside the cluster (type ${String(to)})` : `changes the Service's type to ${String(to)}`,
  );
}

/** Where traffic goes: set when a ClusterIP Service is created (medium: a new name for pods); changed after, high (traffic moves). */
const routed = (words: string) => (i: RuleInput) =>
  i.created && !EXPOSED.has(String((i.result.spec as Record<string, unknown> | undefined)?.type))
    ? verdict('medium', `creates Service ${i.result.metadata.name}: traffic to it reaches the pods it selects`)
    : fixed('high', words)(i);

/**
 * Traffic and exposure: a Service's selector, type, ports and everything
 * that opens it; Ingress and Gateway API routes; service-mesh routing. Any
 * change is high (a new ClusterIP Service is medium); NetworkPolicies and
 * mesh security are sensitive kinds (access rules).
 */
export const TRAFFIC_RULES: FieldRule[] = [
  {
    id: 'service.type',
    area: 'Traffic',
    scope: 'object',
    kinds: SERVICE,
    paths: ['spec.type'],
    safe: 'ClusterIP when created: medium; any other type, or a change: high',
    judge: serviceType,
  },
  {
    id: 'service.routing',
    area: 'Traffic',
    scope: 'object',
    kinds: SERVICE,
    paths: [
      'spec.selector.*',
      'spec.ports[].{name,port,targetPort,protocol,nodePort,appProtocol}',
      'spec.{selector,ports}',
      'spec.publishNotReadyAddresses',
      'spec.trafficDistribution',
    ],
    safe: 'set when a ClusterIP Service is created: medium; changed after: high (traffic moves to other pods or ports)',
    judge: routed('changes which pods and ports receive its traffic'),
  },
  {
    id: 'service.exposure',
    area: 'Traffic',
    scope: 'object',
    kinds: SERVICE,
    paths: [
      'spec.{externalIPs,loadBalancerSourceRanges}[]',
      'spec.{externalIPs,loadBalancerSourceRanges}',
      'spec.externalTrafficPolicy',
      'spec.internalTrafficPolicy',
      'spec.externalName',
      'spec.loadBalancerIP',
      'spec.loadBalancerClass',
      'spec.healthCheckNodePort',
      'spec.allocateLoadBalancerNodePorts',
    ],
    safe: 'the server default (internalTrafficPolicy Cluster) when created: medium; anything else: high (who may reach it from where)',
    judge: (i) =>
      i.created && i.shown === 'spec.internalTrafficPolicy' && i.change.to === 'Cluster'
        ? verdict('medium')
        : fixed(
            'high',
            Array.isArray(i.change.to) || typeof i.change.to === 'string' ? `opens the Service (${String(i.change.to)})` : 'changes who may reach the Service',
          )(i),
  },
  {
    id: 'service.addresses',
    area: 'Traffic',
    scope: 'object',
    kinds: SERVICE,
    paths: ['spec.{clusterIP,ipFamilyPolicy,sessionAffinity}', 'spec.{clusterIPs,ipFamilies}[]', 'spec.sessionAffinityConfig.clientIP.timeoutSeconds'],
    safe: 'low (addresses the API server assigns; session affinity)',
    judge: fixed('low'),
  },
  {
    id: 'knative.traffic',
    area: 'Traffic',
    scope: 'object',
    kinds: kinds('serving.knative.dev', 'Service'),
    paths: ['spec.traffic[].{revisionName,latestRevision,percent,tag,configurationName}', 'spec.traffic'],
    safe: 'set when created: medium; changed after: high (which revision receives traffic)',
    judge: (i) => (i.created ? verdict('medium') : fixed('high', 'moves traffic between revisions')(i)),
  },
  {
    id: 'traffic.routes',
    area: 'Traffic',
    scope: 'object',
    kinds: [
      ...kinds('networking.k8s.io', 'Ingress', 'IngressClass'),
      ...kinds('gateway.networking.k8s.io', '*'),
      ...kinds('networking.istio.io', '*'),
      ...kinds('policy.linkerd.io', 'HTTPRoute', 'GRPCRoute', 'Server'),
      ...kinds('traefik.io', '*'),
      ...kinds('projectcontour.io', 'HTTPProxy'),
    ],
    paths: ['**'],
    safe: 'none: any change routes or exposes traffic',
    judge: fixed('high', 'routes or exposes traffic'),
  },
];
