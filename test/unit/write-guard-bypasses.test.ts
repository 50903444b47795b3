import { expect } from 'chai';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { allowed, at, deployment, deploymentChange, DEPLOYMENT, judge, obj, type Judged } from '../support/write-guard-kit.js';

/**
 * The guard attacked: for each rule, the request or model answer written to
 * get around it (another spelling, another place, another field for the
 * same effect). Each must still be high, or refused.
 */
const STATED_LOW = { kindRisks: [{ group: 'acme.io', kind: 'BuildJob', risk: 'low' as const }] };
const BUILD = at('acme.io', 'BuildJob');
const build = (spec: Record<string, unknown>): KubeObject => obj('acme.io/v1', 'BuildJob', { spec: { queue: 'a', ...spec } });
const svc = (spec: Record<string, unknown>) => obj('v1', 'Service', { spec: { type: 'ClusterIP', selector: { app: 'web' }, ports: [{ port: 80 }], ...spec } });

const HIGH: [string, () => Judged | ReturnType<typeof deploymentChange>, RegExp][] = [
  ['privileged spelled as a string', () => deploymentChange([{}, { securityContext: { privileged: 'true' } }]), /Privileged Containers/],
  ['a capability with the CAP_ prefix', () => deploymentChange([{}, { securityContext: { capabilities: { add: ['CAP_SYS_ADMIN'] } } }]), /CAP_SYS_ADMIN/],
  ['a capability in lower case', () => deploymentChange([{}, { securityContext: { capabilities: { add: ['sys_admin'] } } }]), /sys_admin/],
  ['a hostPort as a string', () => deploymentChange([{}, { ports: [{ containerPort: 80, hostPort: '80' }] }]), /Host Ports/],
  ['seccomp unconfined in lower case', () => deploymentChange([{ securityContext: { seccompProfile: { type: 'unconfined' } } }]), /Seccomp/],
  [
    'a safe sysctl name with a trailing space',
    () => deploymentChange([{ securityContext: { sysctls: [{ name: 'kernel.shm_rmid_forced ', value: '1' }] } }]),
    /Sysctls/,
  ],
  [
    'privileged on an ephemeral container',
    () => deploymentChange([{ ephemeralContainers: [{ name: 'dbg', image: 'ghcr.io/acme/web:1.0', securityContext: { privileged: true } }] }]),
    /ephemeral container dbg/,
  ],
  [
    'a probe that makes the kubelet call the cloud metadata address',
    () => deploymentChange([{}, { livenessProbe: { httpGet: { host: '169.254.169.254', path: '/', port: 80 } } }]),
    /Host Probes/,
  ],
  [
    'the AppArmor annotation unconfined on the template',
    () =>
      deploymentChange([{}, {}, { metadata: { labels: { app: 'web' }, annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' } } }]),
    /AppArmor/,
  ],
  ['a Secret read through envFrom', () => deploymentChange([{}, { envFrom: [{ secretRef: { name: 'payments-db' } }] }]), /reads Secret payments-db/],
  [
    'a Secret read through a projected volume',
    () => deploymentChange([{ volumes: [{ name: 'p', projected: { sources: [{ secret: { name: 'payments-db' } }] } }] }]),
    /reads Secret payments-db/,
  ],
  [
    'a Secret read through a CSI volume',
    () => deploymentChange([{ volumes: [{ name: 'c', csi: { driver: 'x', nodePublishSecretRef: { name: 'payments-db' } } }] }]),
    /reads Secret payments-db/,
  ],
  ['a Secret read as an image pull secret', () => deploymentChange([{ imagePullSecrets: [{ name: 'payments-db' }] }]), /reads Secret payments-db/],
  [
    'a service account token for another audience',
    () => deploymentChange([{ volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { audience: 'vault' } }] } }] }]),
    /service account token for audience vault/,
  ],
  ['the deprecated serviceAccount alias', () => deploymentChange([{ serviceAccount: 'admin' }]), /service account admin/],
  [
    'a toleration of the old master taint',
    () => deploymentChange([{ tolerations: [{ key: 'node-role.kubernetes.io/master', operator: 'Equal', effect: 'NoSchedule' }] }]),
    /control-plane placement/,
  ],
  ['a pod field no rule knows', () => deploymentChange([{ hostUsersNamespace: false }]), /does not know/],
  [
    'a Service emptied of its type (back to the default)',
    () => ({ target: at('', 'Service'), live: svc({ type: 'NodePort' }), result: svc({ type: undefined }) }),
    /type/,
  ],
  ['a new Service with externalIPs', () => ({ target: at('', 'Service'), live: null, result: svc({ externalIPs: ['203.0.113.1'] }) }), /opens the Service/],
  [
    'replicas "0" as a string',
    () => ({ target: DEPLOYMENT, live: deployment(), result: { ...deployment(), spec: { ...(deployment().spec as object), replicas: '0' } } }),
    /zero replicas/,
  ],
  [
    'the last-applied annotation with a capital letter',
    () => ({
      target: at('', 'ConfigMap'),
      live: obj('v1', 'ConfigMap'),
      result: obj('v1', 'ConfigMap', {}, { annotations: { 'Kubectl.kubernetes.io/last-applied-configuration': '{}' } }),
    }),
    /does not know what annotation/,
  ],
  [
    'a label read by kube-proxy',
    () => ({
      target: at('', 'Service'),
      live: svc({}),
      result: { ...svc({}), metadata: { name: 'web', namespace: 'shop', labels: { 'service.kubernetes.io/service-proxy-name': 'none' } } },
    }),
    /does not know what label/,
  ],
  [
    'host access in a stated kind, outside any container',
    () => ({ target: BUILD, live: build({}), result: build({ runner: { hostPID: 'yes' } }), settings: STATED_LOW }),
    /asks for host access/,
  ],
  [
    'a hostPath in a stated kind, outside any container',
    () => ({ target: BUILD, live: build({}), result: build({ cache: { hostPath: { path: '/var/run/docker.sock' } } }), settings: STATED_LOW }),
    /asks for host access/,
  ],
  [
    'host network through a podTemplate alone, in a stated kind',
    () => ({ target: BUILD, live: build({}), result: build({ podTemplate: { hostNetwork: true } }), settings: STATED_LOW }),
    /hostNetwork: true breaks the baseline/,
  ],
  [
    'a pod spec patch in text, in a stated kind',
    () => ({ target: BUILD, live: build({}), result: build({ podSpecPatch: '{"hostPID": true}' }), settings: STATED_LOW }),
    /text svc cannot judge/,
  ],
  [
    'finalizers on a stated kind',
    () => ({ target: BUILD, live: build({}), result: { ...build({}), metadata: { name: 'web', namespace: 'shop', finalizers: ['x'] } }, settings: STATED_LOW }),
    /keeps or removes/,
  ],
  [
    'a privileged container in a stated kind, under a key no one uses',
    () => ({
      target: BUILD,
      live: build({}),
      result: build({ runner: { image: 'ghcr.io/a:1', args: ['x'], securityContext: { privileged: true } } }),
      settings: { ...STATED_LOW, imageRegistries: ['ghcr.io'] },
    }),
    /Privileged Containers/,
  ],
  [
    'a new image from a look-alike registry',
    () => ({ target: DEPLOYMENT, live: deployment(), result: deployment({}, { image: 'ghcr.io.evil.example/acme/web:1.0' }) }),
    /registry ghcr\.io\.evil\.example, new/,
  ],
  [
    'a label on a Deployment saying the change is low',
    () => ({ target: DEPLOYMENT, live: deployment(), result: deployment({ hostNetwork: true }), label: 'low' }),
    /hostNetwork/,
  ],
];

describe('the write guard attacked: each rule, and the request written to get around it', () => {
  for (const [name, make, reason] of HIGH)
    it(`${name}: high`, () => {
      const made = make();
      const v = 'risk' in made ? made : allowed(judge(made));
      expect(v.risk, v.riskReasons.join('; ')).to.equal('high');
      expect(v.riskReasons.join('; ')).to.match(reason);
    });

  it('SVC_IMAGE_REGISTRIES: a look-alike registry is refused, not allowed as ghcr.io', () => {
    const v = judge({
      target: DEPLOYMENT,
      live: deployment(),
      result: deployment({}, { image: 'ghcr.io.evil.example/acme/web:1.0' }),
      settings: { imageRegistries: ['ghcr.io'] },
    });
    expect(v).to.deep.include({ allowed: false, code: 'ImageRegistry' });
  });

  it("a namespace's own enforce label never lowers what a change introduces; a wrongly spelled label is restricted", () => {
    const privileged = { 'pod-security.kubernetes.io/enforce': 'privileged' };
    expect(deploymentChange([{ hostPID: true }], { namespaceLabels: privileged }).risk).to.equal('high');
    const typo = { 'pod-security.kubernetes.io/enforce': 'privilege' };
    expect(deploymentChange([{}, { image: 'ghcr.io/acme/web:1.1' }], { namespaceLabels: typo }).risk).to.equal('high');
  });
});
