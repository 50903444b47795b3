import { kinds, type FieldRule, type KindRef } from './field-rule.js';

/** A kind whose every change is high and never written automatically, with why. */
function sensitive(id: string, area: string, refs: KindRef[], why: string): FieldRule {
  return {
    id,
    area,
    scope: 'object',
    kinds: refs,
    paths: ['**'],
    safe: `none: ${why}; automatic mode never writes it`,
    sensitive: why,
    judge: (i) => ({ risk: 'high', reason: `${i.kind} is a sensitive kind: ${why}` }),
  };
}

/**
 * Kinds that decide who may do what, what runs where, and what the API
 * itself is: any change is high and automatic mode never writes them
 * (the guard's `sensitive` findings).
 */
export const ACCESS_RULES: FieldRule[] = [
  sensitive('access.rbac', 'Access', kinds('rbac.authorization.k8s.io', '*'), 'access control (RBAC)'),
  sensitive('access.admission', 'Access', kinds('admissionregistration.k8s.io', '*'), 'admission (webhooks and admission policies)'),
  sensitive('access.kyverno', 'Access', [...kinds('kyverno.io', '*'), ...kinds('*.kyverno.io', '*')], 'a Kyverno policy'),
  sensitive('access.gatekeeper', 'Access', [...kinds('gatekeeper.sh', '*'), ...kinds('*.gatekeeper.sh', '*')], 'a Gatekeeper policy or constraint'),
  sensitive('access.network-policy', 'Access', [...kinds('*', '*NetworkPolicy')], 'it changes what may talk to what (a NetworkPolicy of any API group)'),
  sensitive(
    'access.mesh-security',
    'Access',
    [
      ...kinds('security.istio.io', '*'),
      ...kinds('policy.linkerd.io', 'AuthorizationPolicy', 'ServerAuthorization', 'MeshTLSAuthentication', 'NetworkAuthentication'),
    ],
    'service-mesh security (who may talk to whom, and how they prove it)',
  ),
  sensitive('access.credentials', 'Access', kinds('', 'Secret', 'ServiceAccount'), 'credentials and identities'),
  sensitive('cluster.core', 'Cluster', kinds('', 'Namespace', 'Node', 'PersistentVolume'), 'namespaces, nodes and volumes are the cluster itself'),
  sensitive(
    'cluster.scheduling',
    'Cluster',
    [...kinds('scheduling.k8s.io', 'PriorityClass'), ...kinds('node.k8s.io', 'RuntimeClass')],
    'scheduling and runtimes for every pod',
  ),
  sensitive(
    'cluster.api',
    'Cluster',
    [
      ...kinds('apiextensions.k8s.io', 'CustomResourceDefinition'),
      ...kinds('apiregistration.k8s.io', 'APIService'),
      ...kinds('certificates.k8s.io', 'CertificateSigningRequest'),
    ],
    'API definitions and certificates',
  ),
];
