import { expect } from 'chai';
import { ACCESS_RULES } from '../../../../domain/write-guard/rules/access-rules.js';
import { kindMatches } from '../../../../domain/write-guard/rules/field-rule.js';
import { judgedBy } from '../../../support/rule-input.js';

/** The access rule that claims a kind, by its API group and kind as discovery resolves them. */
const claiming = (group: string, kind: string) => ACCESS_RULES.find((r) => r.kinds?.some((k) => kindMatches(k, group, kind)))?.id;

describe('write guard rules: access (sensitive kinds)', () => {
  const claimed: [string, string, string][] = [
    ['rbac.authorization.k8s.io', 'ClusterRoleBinding', 'access.rbac'],
    ['rbac.authorization.k8s.io', 'Role', 'access.rbac'],
    ['admissionregistration.k8s.io', 'ValidatingAdmissionPolicy', 'access.admission'],
    ['kyverno.io', 'ClusterPolicy', 'access.kyverno'],
    ['reports.kyverno.io', 'ClusterEphemeralReport', 'access.kyverno'],
    ['templates.gatekeeper.sh', 'ConstraintTemplate', 'access.gatekeeper'],
    ['networking.k8s.io', 'NetworkPolicy', 'access.network-policy'],
    // another group's NetworkPolicy is the same thing under another name
    ['cilium.io', 'CiliumClusterwideNetworkPolicy', 'access.network-policy'],
    ['crd.projectcalico.org', 'GlobalNetworkPolicy', 'access.network-policy'],
    ['security.istio.io', 'PeerAuthentication', 'access.mesh-security'],
    ['policy.linkerd.io', 'MeshTLSAuthentication', 'access.mesh-security'],
    ['', 'Secret', 'access.credentials'],
    ['', 'ServiceAccount', 'access.credentials'],
    ['', 'Namespace', 'cluster.core'],
    ['', 'Node', 'cluster.core'],
    ['', 'PersistentVolume', 'cluster.core'],
    ['scheduling.k8s.io', 'PriorityClass', 'cluster.scheduling'],
    ['node.k8s.io', 'RuntimeClass', 'cluster.scheduling'],
    ['apiextensions.k8s.io', 'CustomResourceDefinition', 'cluster.api'],
    ['apiregistration.k8s.io', 'APIService', 'cluster.api'],
    ['certificates.k8s.io', 'CertificateSigningRequest', 'cluster.api'],
  ];
  for (const [group, kind, id] of claimed) it(`${group || 'core'}/${kind} is claimed by ${id}`, () => expect(claiming(group, kind)).to.equal(id));

  const notClaimed: [string, string, string][] = [
    ['', 'ConfigMap', 'an ordinary kind'],
    ['apps', 'Deployment', 'a workload'],
    // a group that only looks like a policy engine's is not one: the subgroup match needs the dot
    ['evilkyverno.io', 'ClusterPolicy', 'a group ending in kyverno.io without the dot'],
    ['kyverno.io.example.com', 'ClusterPolicy', 'a group that starts with kyverno.io'],
    // Linkerd's routes are traffic rules, not mesh security
    ['policy.linkerd.io', 'HTTPRoute', 'a Linkerd route'],
    // a Secret of another API group is not the core Secret
    ['acme.io', 'Secret', 'a custom Secret kind'],
    ['', 'PersistentVolumeClaim', 'a claim (capacity rules judge it)'],
  ];
  for (const [group, kind, why] of notClaimed)
    it(`${group || 'core'}/${kind} is not claimed (${why})`, () => expect(claiming(group, kind)).to.equal(undefined));

  it('every access rule claims every path of its kinds, is high with its reason, and is never written automatically', () => {
    for (const r of ACCESS_RULES) {
      expect(r.sensitive, r.id).to.be.a('string').and.not.equal('');
      expect(r.scope, r.id).to.equal('object');
      for (const path of ['spec.replicas', 'data.password', 'rules[0].verbs[0]', 'metadata.labels.app']) {
        const { id, verdict } = judgedBy([r], { path, kind: 'Secret' });
        expect(id, `${r.id} ${path}`).to.equal(r.id);
        expect(verdict).to.deep.equal({ risk: 'high', reason: `Secret is a sensitive kind: ${r.sensitive!}` });
      }
    }
  });
});
