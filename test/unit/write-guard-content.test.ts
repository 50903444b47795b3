import { expect } from 'chai';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { findPodSpecs, imageRegistry } from '../../domain/write-guard/pod-specs.js';
import type { ResolvedTarget } from '../../domain/write-guard/resolved-target.js';
import type { WriteAsSent } from '../../domain/write-guard/sent-write.js';
import { judgeWrite, type GuardSettings, type GuardVerdict } from '../../domain/write-guard/write-guard.js';

const open: GuardSettings = { kinds: [], namespaces: [], protectedNamespaces: ['kube-system', 'svc'], imageRegistries: [] };
const at = (group: string, kind: string, namespace?: string, name = 'web'): ResolvedTarget => ({
  group,
  version: 'v1',
  kind,
  resource: `${kind.toLowerCase()}s`,
  namespaced: namespace !== undefined,
  name,
  ...(namespace ? { namespace } : {}),
});
const obj = (apiVersion: string, kind: string, rest: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'web', namespace: 'shop', ...meta },
  ...rest,
});
const pod = (spec: Record<string, unknown>) => ({ containers: [{ name: 'app', image: 'ghcr.io/acme/web:1.0' }], ...spec });
const rollout = (spec: Record<string, unknown> = {}) => obj('argoproj.io/v1alpha1', 'Rollout', { spec: { replicas: 2, template: { spec: pod(spec) } } });
const ROLLOUT = at('argoproj.io', 'Rollout', 'shop');
const merge: WriteAsSent = { verb: 'patch', patchType: 'merge', patch: { spec: {} } };
const judge = (target: ResolvedTarget, live: KubeObject | null, result: KubeObject | null, write = merge, settings = open, label?: 'low' | 'medium' | 'high') =>
  judgeWrite({ target, live, result, write, settings, label });
const allowed = (v: GuardVerdict) => {
  if (!v.allowed) throw new Error(`refused: ${v.reason}`);
  return v;
};

describe('write guard: risk from the content the API server would store', () => {
  const high: [string, ResolvedTarget, KubeObject | null, KubeObject | null, RegExp, WriteAsSent?][] = [
    [
      'a Rollout made privileged',
      ROLLOUT,
      rollout(),
      rollout({ containers: [{ name: 'app', image: 'ghcr.io/acme/web:1.0', securityContext: { privileged: true } }] }),
      /container app is privileged/,
    ],
    ['hostPID', ROLLOUT, rollout(), rollout({ hostPID: true }), /hostPID: true/],
    ['hostNetwork', ROLLOUT, rollout(), rollout({ hostNetwork: true }), /hostNetwork: true/],
    ['a hostPath volume', ROLLOUT, rollout(), rollout({ volumes: [{ name: 'root', hostPath: { path: '/' } }] }), /hostPath volume \(\/\)/],
    [
      'added capabilities in an initContainer',
      ROLLOUT,
      rollout(),
      rollout({ initContainers: [{ name: 'i', image: 'ghcr.io/acme/i:1', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }] }),
      /initContainer i adds capabilities SYS_ADMIN/,
    ],
    [
      'a hostPort',
      ROLLOUT,
      rollout(),
      rollout({ containers: [{ name: 'app', image: 'ghcr.io/acme/web:1.0', ports: [{ containerPort: 80, hostPort: 80 }] }] }),
      /hostPort 80/,
    ],
    ['runAsUser 0 for the pod', ROLLOUT, rollout(), rollout({ securityContext: { runAsUser: 0 } }), /runAsUser 0/],
    [
      'a control-plane toleration',
      ROLLOUT,
      rollout(),
      rollout({ tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }] }),
      /toleration of node-role/,
    ],
    ['a toleration of every taint', ROLLOUT, rollout(), rollout({ tolerations: [{ operator: 'Exists' }] }), /every taint/],
    [
      'a control-plane nodeSelector',
      ROLLOUT,
      rollout(),
      rollout({ nodeSelector: { 'node-role.kubernetes.io/control-plane': '' } }),
      /nodeSelector for control-plane/,
    ],
    ['a new image registry', ROLLOUT, rollout(), rollout({ containers: [{ name: 'app', image: 'evil.example/miner:latest' }] }), /registry evil\.example, new/],
    ['a Docker Hub image where the object used ghcr.io', ROLLOUT, rollout(), rollout({ containers: [{ name: 'app', image: 'miner' }] }), /registry docker\.io/],
    [
      'a privileged Knative Service',
      at('serving.knative.dev', 'Service', 'shop'),
      null,
      obj('serving.knative.dev/v1', 'Service', { spec: { template: { spec: pod({ hostIPC: true }) } } }),
      /hostIPC/,
    ],
    [
      'a CronJob whose job runs privileged',
      at('batch', 'CronJob', 'shop'),
      null,
      obj('batch/v1', 'CronJob', { spec: { jobTemplate: { spec: { template: { spec: pod({ hostNetwork: true }) } } } } }),
      /jobTemplate\.spec\.template\.spec: hostNetwork/,
    ],
    [
      'a LoadBalancer Service',
      at('', 'Service', 'shop'),
      obj('v1', 'Service', { spec: { type: 'ClusterIP' } }),
      obj('v1', 'Service', { spec: { type: 'LoadBalancer' } }),
      /type LoadBalancer/,
    ],
    ['a NodePort Service', at('', 'Service', 'shop'), null, obj('v1', 'Service', { spec: { type: 'NodePort' } }), /type NodePort/],
    [
      'externalIPs',
      at('', 'Service', 'shop'),
      obj('v1', 'Service', { spec: {} }),
      obj('v1', 'Service', { spec: { externalIPs: ['203.0.113.9'] } }),
      /externalIPs 203\.0\.113\.9/,
    ],
    [
      'an ExternalName Service',
      at('', 'Service', 'shop'),
      obj('v1', 'Service', { spec: {} }),
      obj('v1', 'Service', { spec: { type: 'ExternalName', externalName: 'evil.example' } }),
      /evil\.example \(ExternalName\)/,
    ],
    [
      'any NetworkPolicy change',
      at('networking.k8s.io', 'NetworkPolicy', 'shop'),
      obj('networking.k8s.io/v1', 'NetworkPolicy', { spec: { podSelector: {} } }),
      obj('networking.k8s.io/v1', 'NetworkPolicy', { spec: { podSelector: { matchLabels: { none: 'x' } } } }),
      /what may talk to what/,
    ],
    [
      'a Node',
      at('', 'Node'),
      obj('v1', 'Node', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } }),
      obj('v1', 'Node', { spec: {} }),
      /cluster-scoped.*|sensitive kind/,
    ],
    [
      'a PriorityClass',
      at('scheduling.k8s.io', 'PriorityClass'),
      null,
      obj('scheduling.k8s.io/v1', 'PriorityClass', { value: 1e9, globalDefault: true }),
      /sensitive kind/,
    ],
    ['a Kyverno ClusterPolicy delete', at('kyverno.io', 'ClusterPolicy'), obj('kyverno.io/v1', 'ClusterPolicy'), null, /a Kyverno policy/, { verb: 'delete' }],
    [
      'a Gatekeeper constraint',
      at('constraints.gatekeeper.sh', 'K8sRequiredLabels'),
      obj('constraints.gatekeeper.sh/v1beta1', 'K8sRequiredLabels'),
      obj('constraints.gatekeeper.sh/v1beta1', 'K8sRequiredLabels', { spec: {} }),
      /Gatekeeper/,
    ],
    [
      'a ValidatingAdmissionPolicy',
      at('admissionregistration.k8s.io', 'ValidatingAdmissionPolicy'),
      null,
      obj('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy'),
      /admission/,
    ],
    ['finalizers dropped', at('', 'ConfigMap', 'shop'), obj('v1', 'ConfigMap', {}, { finalizers: ['keep'] }), obj('v1', 'ConfigMap'), /metadata\.finalizers/],
    [
      'ownerReferences added',
      at('', 'ConfigMap', 'shop'),
      obj('v1', 'ConfigMap'),
      obj('v1', 'ConfigMap', {}, { ownerReferences: [{ kind: 'X', name: 'y', uid: 'u' }] }),
      /metadata\.ownerReferences/,
    ],
    [
      'only the last-applied annotation',
      at('', 'ConfigMap', 'shop'),
      obj('v1', 'ConfigMap'),
      obj('v1', 'ConfigMap', {}, { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } }),
      /last-applied-configuration/,
    ],
    [
      'scaling to zero',
      at('apps', 'Deployment', 'shop'),
      obj('apps/v1', 'Deployment', { spec: { replicas: 3 } }),
      obj('apps/v1', 'Deployment', { spec: { replicas: 0 } }),
      /zero replicas/,
    ],
    ['a Deployment delete', at('apps', 'Deployment', 'shop'), obj('apps/v1', 'Deployment'), null, /deletes a Deployment/, { verb: 'delete' }],
    ['a protected namespace', at('', 'ConfigMap', 'svc'), obj('v1', 'ConfigMap'), obj('v1', 'ConfigMap', { data: { a: 'b' } }), /svc is svc's own namespace/],
    ['a Secret', at('', 'Secret', 'shop'), obj('v1', 'Secret'), obj('v1', 'Secret', { data: { a: 'Yg==' } }), /sensitive kind/],
    [
      'a JSON Patch replace of /metadata that does not repeat the labels',
      at('', 'ConfigMap', 'shop'),
      obj('v1', 'ConfigMap', {}, { labels: { app: 'web' } }),
      obj('v1', 'ConfigMap'),
      /removes fields the action does not name: metadata\.labels/,
      { verb: 'patch', patchType: 'json', patch: [{ op: 'replace', path: '/metadata', value: { name: 'web', namespace: 'shop' } }] },
    ],
    [
      'an apply that drops a field',
      at('', 'ConfigMap', 'shop'),
      obj('v1', 'ConfigMap', { data: { a: '1', b: '2' } }),
      obj('v1', 'ConfigMap', { data: { a: '1' } }),
      /data\.b/,
      { verb: 'apply' },
    ],
  ];
  for (const [name, target, live, result, reason, write] of high)
    it(`high, whatever the label: ${name}`, () => {
      const v = allowed(judge(target, live, result, write ?? merge, open, 'low'));
      expect(v.risk, v.riskReasons.join('; ')).to.equal('high');
      expect(v.floor).to.equal('high');
      expect(v.riskReasons.join('; ')).to.match(reason);
    });

  const lower: [string, ResolvedTarget, KubeObject | null, KubeObject | null, 'low' | 'medium', RegExp | undefined, WriteAsSent?][] = [
    [
      'a new tag from the same registry',
      ROLLOUT,
      rollout(),
      rollout({ containers: [{ name: 'app', image: 'ghcr.io/acme/web:1.1' }] }),
      'medium',
      /ghcr\.io\/acme\/web:1\.0 -> ghcr\.io\/acme\/web:1\.1/,
    ],
    [
      'an env change in a custom resource pod template',
      ROLLOUT,
      rollout(),
      rollout({ containers: [{ name: 'app', image: 'ghcr.io/acme/web:1.0', env: [{ name: 'A', value: 'b' }] }] }),
      'medium',
      /pods are replaced/,
    ],
    ['deleting a Pod', at('', 'Pod', 'shop'), obj('v1', 'Pod'), null, 'medium', /deletes a Pod/, { verb: 'delete' }],
    [
      'scaling a Deployment',
      at('apps', 'Deployment', 'shop'),
      obj('apps/v1', 'Deployment', { spec: { replicas: 1 } }),
      obj('apps/v1', 'Deployment', { spec: { replicas: 3 } }),
      'low',
      undefined,
    ],
    [
      'a ClusterIP Service port change',
      at('', 'Service', 'shop'),
      obj('v1', 'Service', { spec: { ports: [{ port: 80 }] } }),
      obj('v1', 'Service', { spec: { ports: [{ port: 8080 }] } }),
      'low',
      undefined,
    ],
    [
      'a JSON Patch remove it names',
      at('', 'ConfigMap', 'shop'),
      obj('v1', 'ConfigMap', { data: { a: '1', b: '2' } }),
      obj('v1', 'ConfigMap', { data: { a: '1' } }),
      'low',
      undefined,
      { verb: 'patch', patchType: 'json', patch: [{ op: 'remove', path: '/data/b' }] },
    ],
    [
      'a merge-patch null it names',
      at('', 'ConfigMap', 'shop'),
      obj('v1', 'ConfigMap', { data: { a: '1', b: '2' } }),
      obj('v1', 'ConfigMap', { data: { a: '1' } }),
      'low',
      undefined,
      { verb: 'patch', patchType: 'merge', patch: { data: { b: null } } },
    ],
    [
      'an unchanged privileged pod spec with a label change elsewhere',
      ROLLOUT,
      rollout({ hostPID: true }),
      { ...rollout({ hostPID: true }), metadata: { name: 'web', namespace: 'shop', labels: { a: 'b' } } },
      'low',
      undefined,
    ],
  ];
  for (const [name, target, live, result, risk, reason, write] of lower)
    it(`${risk}: ${name}`, () => {
      const v = allowed(judge(target, live, result, write ?? merge));
      expect(v.risk, v.riskReasons.join('; ')).to.equal(risk);
      if (reason) expect(v.riskReasons.join('; ')).to.match(reason);
      else expect(v.riskReasons).to.deep.equal([]);
    });

  it("the model's label only raises the risk, and says so", () => {
    const live = obj('apps/v1', 'Deployment', { spec: { replicas: 1 } });
    const result = obj('apps/v1', 'Deployment', { spec: { replicas: 3 } });
    const v = allowed(judge(at('apps', 'Deployment', 'shop'), live, result, merge, open, 'high'));
    expect(v).to.deep.include({ risk: 'high', floor: 'low', riskReasons: ['the proposal labels it high'] });
    expect(allowed(judge(ROLLOUT, rollout(), rollout({ hostPID: true }), merge, open, 'low')).risk).to.equal('high');
  });

  it('SVC_IMAGE_REGISTRIES refuses an image from another registry; a listed one is known, so a create is medium', () => {
    const settings = { ...open, imageRegistries: ['ghcr.io'] };
    const v = judge(ROLLOUT, rollout(), rollout({ containers: [{ name: 'app', image: 'evil.example/miner:latest' }] }), merge, settings);
    expect(v).to.deep.include({ allowed: false, code: 'ImageRegistry' });
    expect(!v.allowed && v.reason).to.match(/evil\.example\/miner:latest is outside SVC_IMAGE_REGISTRIES \(ghcr\.io\)/);
    const created = allowed(judge(ROLLOUT, null, rollout(), { verb: 'apply' }, settings));
    expect(created.risk).to.equal('medium');
    expect(allowed(judge(ROLLOUT, null, rollout(), { verb: 'apply' })).risk, 'no allow-list: every registry of a create is new').to.equal('high');
  });

  it('pod specs are found by shape, and image registries read as a runtime reads them', () => {
    const paths = (o: unknown) => findPodSpecs(o).map((p) => p.path);
    expect(paths(rollout())).to.deep.equal(['spec.template.spec']);
    expect(paths({ spec: pod({}) })).to.deep.equal(['spec']);
    expect(paths({ spec: { workers: [{ template: { containers: [{ image: 'a' }] } }] } })).to.deep.equal(['spec.workers.0.template']);
    expect(paths({ status: { containers: [{ image: 'a' }] } }), 'status is not searched').to.deep.equal([]);
    const table: [string, string][] = [
      ['nginx', 'docker.io'],
      ['library/nginx:1', 'docker.io'],
      ['ghcr.io/a/b:1', 'ghcr.io'],
      ['localhost/x', 'localhost'],
      ['registry.example:5000/x@sha256:ab', 'registry.example:5000'],
    ];
    for (const [image, registry] of table) expect(imageRegistry(image), image).to.equal(registry);
  });
});
