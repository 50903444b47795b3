import { expect } from 'chai';
import type { KubeObject } from '../../../../domain/cluster/kube-types.js';
import { POD_RULES } from '../../../../domain/write-guard/rules/pod-rules.js';
import { ruleCases, type RuleCase } from '../../../support/rule-input.js';

/** An object whose pod spec is at the root, so a toleration's path from the root is its path in the pod spec. */
const tolerating = (...tolerations: Record<string, unknown>[]): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, tolerations });
const POD = POD_RULES.filter((r) => r.scope === 'pod');
const METADATA = POD_RULES.filter((r) => r.scope === 'pod-metadata');

/** Paths relative to a pod spec found by shape. */
const CASES: RuleCase[] = [
  { name: 'a container list replaced', path: 'containers', to: [], rule: 'pod.containers', risk: 'medium' },
  { name: 'the default service account', path: 'serviceAccountName', from: 'web', to: 'default', rule: 'pod.service-account', risk: 'medium' },
  { name: 'the service account unset', path: 'serviceAccountName', from: 'web', rule: 'pod.service-account', risk: 'medium' },
  { name: 'another service account', path: 'serviceAccountName', to: 'admin', rule: 'pod.service-account', risk: 'high', reason: /service account admin/ },
  // the deprecated spelling of the same field
  { name: 'another service account, old spelling', path: 'serviceAccount', to: 'admin', rule: 'pod.service-account', risk: 'high' },
  { name: 'the API token turned off', path: 'automountServiceAccountToken', to: false, rule: 'pod.token', risk: 'medium' },
  { name: 'the API token turned on', path: 'automountServiceAccountToken', from: false, to: true, rule: 'pod.token', risk: 'high' },
  { name: 'the API token back to the default', path: 'automountServiceAccountToken', from: false, rule: 'pod.token', risk: 'high' },
  { name: 'a node name unset', path: 'nodeName', from: 'n1', rule: 'pod.node-name', risk: 'medium' },
  { name: 'a node name set', path: 'nodeName', to: 'n1', rule: 'pod.node-name', risk: 'high', reason: /past the scheduler/ },
  { name: 'a node selector', path: 'nodeSelector.disk', to: 'ssd', rule: 'pod.node-selector', risk: 'medium' },
  {
    name: 'a control-plane node selector',
    path: 'nodeSelector["node-role.kubernetes.io/control-plane"]',
    to: '',
    rule: 'pod.node-selector',
    risk: 'high',
  },
  { name: 'the old master node selector', path: 'nodeSelector["node-role.kubernetes.io/master"]', to: '', rule: 'pod.node-selector', risk: 'high' },
  {
    name: 'node affinity naming control-plane nodes',
    path: 'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key',
    to: 'node-role.kubernetes.io/control-plane',
    rule: 'pod.affinity',
    risk: 'high',
  },
  {
    name: 'pod anti-affinity',
    path: 'affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight',
    to: 100,
    rule: 'pod.affinity',
    risk: 'medium',
  },
  {
    name: 'an ordinary toleration',
    path: 'tolerations[0].key',
    to: 'gpu',
    result: tolerating({ key: 'gpu', operator: 'Exists' }),
    rule: 'pod.tolerations',
    risk: 'medium',
  },
  {
    name: 'a control-plane toleration',
    path: 'tolerations[1].effect',
    to: 'NoSchedule',
    result: tolerating({ key: 'gpu' }, { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }),
    rule: 'pod.tolerations',
    risk: 'high',
    reason: /control-plane placement/,
  },
  // no key with Exists tolerates every taint, the control plane's included
  {
    name: 'a toleration of every taint',
    path: 'tolerations[0].operator',
    to: 'Exists',
    result: tolerating({ operator: 'Exists' }),
    rule: 'pod.tolerations',
    risk: 'high',
    reason: /every taint/,
  },
  { name: 'an ordinary priority class', path: 'priorityClassName', to: 'batch', rule: 'pod.priority-class', risk: 'medium' },
  { name: 'a system priority class', path: 'priorityClassName', to: 'system-node-critical', rule: 'pod.priority-class', risk: 'high' },
  { name: 'the default scheduler', path: 'schedulerName', to: 'default-scheduler', rule: 'pod.scheduler', risk: 'medium' },
  { name: 'another scheduler', path: 'schedulerName', to: 'mine', rule: 'pod.scheduler', risk: 'high' },
  { name: 'a runtime class set', path: 'runtimeClassName', to: 'runc-unsafe', rule: 'pod.runtime-class', risk: 'high' },
  { name: 'a runtime class unset', path: 'runtimeClassName', from: 'gvisor', rule: 'pod.runtime-class', risk: 'medium' },
  { name: 'the OS set on create', path: 'os.name', to: 'linux', created: true, rule: 'pod.os', risk: 'medium' },
  { name: 'the OS changed', path: 'os.name', from: 'linux', to: 'windows', rule: 'pod.os', risk: 'high' },
  { name: 'a host alias added', path: 'hostAliases[0].ip', to: '10.0.0.1', rule: 'pod.dns-names', risk: 'high', reason: /what names resolve to/ },
  { name: 'a nameserver removed', path: 'dnsConfig.nameservers[0]', from: '1.1.1.1', rule: 'pod.dns-names', risk: 'medium' },
  { name: 'ClusterFirst DNS', path: 'dnsPolicy', to: 'ClusterFirst', rule: 'pod.dns-policy', risk: 'medium' },
  { name: 'DNS from the node', path: 'dnsPolicy', to: 'Default', rule: 'pod.dns-policy', risk: 'high' },
  { name: 'a device claim', path: 'resourceClaims[0].resourceClaimName', to: 'gpu', rule: 'pod.resource-claims', risk: 'high' },
  { name: 'a volume added', path: 'volumes[name=cache].emptyDir.sizeLimit', to: '1Gi', rule: 'pod.volumes', risk: 'medium' },
  // a hostPath is judged by the Pod Security Standards on the whole pod: the rule only claims it
  { name: 'a hostPath volume', path: 'volumes[name=root].hostPath.path', to: '/', rule: 'pod.volumes', risk: 'medium' },
  { name: 'hostNetwork', path: 'hostNetwork', to: true, rule: 'pod.security', risk: 'medium' },
  { name: 'a sysctl', path: 'securityContext.sysctls[0].name', to: 'kernel.msgmax', rule: 'pod.security', risk: 'medium' },
  { name: 'the grace period', path: 'terminationGracePeriodSeconds', from: 30, to: 5, rule: 'pod.other', risk: 'medium' },
  // unknown pod fields and volume types stay unclaimed: high in the guard
  { name: 'a volume type the rules do not know', path: 'volumes[name=x].nfs.server', to: 'evil', rule: undefined },
  { name: 'a pod field the API does not define', path: 'hostUsersx', to: false, rule: undefined },
  { name: 'a toleration field the API does not define', path: 'tolerations[0].everything', to: true, rule: undefined },
];

const METADATA_CASES: RuleCase[] = [
  { name: 'a plain pod label', path: 'app', to: 'web', rule: 'pod-metadata', risk: 'medium' },
  { name: 'a restart', path: '["kubectl.kubernetes.io/restartedAt"]', to: 'now', rule: 'pod-metadata', risk: 'medium' },
  {
    name: 'the AppArmor annotation',
    path: '["container.apparmor.security.beta.kubernetes.io/web"]',
    to: 'runtime/default',
    rule: 'pod-metadata',
    risk: 'medium',
  },
  {
    name: 'a sidecar injection annotation',
    path: '["sidecar.istio.io/inject"]',
    to: 'true',
    rule: 'pod-metadata',
    risk: 'high',
    reason: /webhook or controller may inject/,
  },
  {
    name: 'the last-applied annotation on a pod template',
    path: '["kubectl.kubernetes.io/last-applied-configuration"]',
    to: '{}',
    rule: 'pod-metadata',
    risk: 'high',
  },
];

describe('write guard rules: pods', () => {
  describe('pod spec', () => ruleCases(POD, CASES));
  describe("pod template's labels and annotations", () => ruleCases(METADATA, METADATA_CASES));

  it('are all found by shape (a pod spec, a pod template), never by kind', () => {
    expect(POD_RULES.filter((r) => r.scope !== 'pod' && r.scope !== 'pod-metadata').map((r) => r.id)).to.deep.equal([]);
  });
});
