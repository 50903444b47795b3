import { expect } from 'chai';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { findPods, imageRegistry } from '../../domain/write-guard/pod-shapes.js';
import type { ResolvedTarget } from '../../domain/write-guard/resolved-target.js';
import type { WriteAsSent } from '../../domain/write-guard/sent-write.js';
import { allowed, at, deployment, deploymentChange, DEPLOYMENT, judge, obj, podSpec } from '../support/write-guard-kit.js';

const rollout = (spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}) =>
  obj('argoproj.io/v1alpha1', 'Rollout', { spec: { replicas: 2, template: { spec: podSpec(spec, container) } } });
const ROLLOUT = at('argoproj.io', 'Rollout');
const configMap = (data: Record<string, string>, meta: Record<string, unknown> = {}) => obj('v1', 'ConfigMap', { data }, meta);
const CONFIGMAP = at('', 'ConfigMap');

describe('write guard: risk from the content the API server would store', () => {
  const high: [string, ResolvedTarget, KubeObject | null, KubeObject | null, RegExp, WriteAsSent?][] = [
    [
      'a Rollout made privileged',
      ROLLOUT,
      rollout(),
      rollout({}, { securityContext: { privileged: true } }),
      /container app securityContext\.privileged: true breaks the baseline/,
    ],
    [
      'hostPID',
      ROLLOUT,
      rollout(),
      rollout({ hostPID: true }),
      /hostPID: true breaks the baseline Pod Security Standard \(Host Namespaces\), new in this change/,
    ],
    ['a hostPath volume', ROLLOUT, rollout(), rollout({ volumes: [{ name: 'root', hostPath: { path: '/' } }] }), /volume root hostPath/],
    [
      'added capabilities in an initContainer',
      ROLLOUT,
      rollout(),
      rollout({ initContainers: [{ name: 'i', image: 'ghcr.io/acme/i:1', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }] }),
      /init container i securityContext\.capabilities\.add: SYS_ADMIN/,
    ],
    ['a hostPort', ROLLOUT, rollout(), rollout({}, { ports: [{ containerPort: 80, hostPort: 80 }] }), /ports hostPort: 80/],
    [
      'a control-plane toleration',
      ROLLOUT,
      rollout(),
      rollout({ tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }] }),
      /tolerates node-role/,
    ],
    ['a toleration of every taint', ROLLOUT, rollout(), rollout({ tolerations: [{ operator: 'Exists' }] }), /every taint/],
    [
      'a control-plane nodeSelector',
      ROLLOUT,
      rollout(),
      rollout({ nodeSelector: { 'node-role.kubernetes.io/control-plane': '' } }),
      /nodeSelector for control-plane/,
    ],
    ['a new image registry', ROLLOUT, rollout(), rollout({}, { image: 'evil.example/miner:latest' }), /registry evil\.example, new/],
    ['a Docker Hub image where the object used ghcr.io', ROLLOUT, rollout(), rollout({}, { image: 'miner' }), /registry docker\.io/],
    [
      'a Knative Service on the host IPC',
      at('serving.knative.dev', 'Service'),
      null,
      obj('serving.knative.dev/v1', 'Service', { spec: { template: { spec: podSpec({ hostIPC: true }) } } }),
      /hostIPC: true/,
    ],
    [
      'a CronJob whose job runs on the host network',
      at('batch', 'CronJob'),
      null,
      obj('batch/v1', 'CronJob', { spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: podSpec({ hostNetwork: true }) } } } } }),
      /jobTemplate\.spec\.template\.spec: hostNetwork: true/,
    ],
    [
      'a LoadBalancer Service',
      at('', 'Service'),
      obj('v1', 'Service', { spec: { type: 'ClusterIP' } }),
      obj('v1', 'Service', { spec: { type: 'LoadBalancer' } }),
      /type LoadBalancer/,
    ],
    ['a NodePort Service', at('', 'Service'), null, obj('v1', 'Service', { spec: { type: 'NodePort' } }), /type NodePort/],
    [
      'externalIPs',
      at('', 'Service'),
      obj('v1', 'Service', { spec: {} }),
      obj('v1', 'Service', { spec: { externalIPs: ['203.0.113.9'] } }),
      /opens the Service \(203\.0\.113\.9\)/,
    ],
    [
      'an ExternalName Service',
      at('', 'Service'),
      obj('v1', 'Service', { spec: {} }),
      obj('v1', 'Service', { spec: { type: 'ExternalName', externalName: 'evil.example' } }),
      /evil\.example \(ExternalName\)/,
    ],
    [
      'a Service port change',
      at('', 'Service'),
      obj('v1', 'Service', { spec: { ports: [{ port: 80 }] } }),
      obj('v1', 'Service', { spec: { ports: [{ port: 8080 }] } }),
      /receive its traffic/,
    ],
    [
      'any NetworkPolicy change',
      at('networking.k8s.io', 'NetworkPolicy'),
      obj('networking.k8s.io/v1', 'NetworkPolicy', { spec: { podSelector: {} } }),
      obj('networking.k8s.io/v1', 'NetworkPolicy', { spec: { podSelector: { matchLabels: { none: 'x' } } } }),
      /what may talk to what/,
    ],
    [
      'a Node',
      at('', 'Node', undefined),
      obj('v1', 'Node', { spec: { taints: [{ key: 'k' }] } }),
      obj('v1', 'Node', { spec: {} }),
      /cluster-scoped.*|sensitive kind/,
    ],
    [
      'a PriorityClass',
      at('scheduling.k8s.io', 'PriorityClass', undefined),
      null,
      obj('scheduling.k8s.io/v1', 'PriorityClass', { value: 1e9 }),
      /sensitive kind/,
    ],
    [
      'a Kyverno ClusterPolicy delete',
      at('kyverno.io', 'ClusterPolicy', undefined),
      obj('kyverno.io/v1', 'ClusterPolicy'),
      null,
      /a Kyverno policy/,
      { verb: 'delete' },
    ],
    [
      'a Gatekeeper constraint',
      at('constraints.gatekeeper.sh', 'K8sRequiredLabels', undefined),
      obj('constraints.gatekeeper.sh/v1beta1', 'K8sRequiredLabels'),
      obj('constraints.gatekeeper.sh/v1beta1', 'K8sRequiredLabels', { spec: {} }),
      /Gatekeeper/,
    ],
    ['finalizers dropped', CONFIGMAP, configMap({}, { finalizers: ['keep'] }), configMap({}), /metadata\.finalizers/],
    ['ownerReferences added', CONFIGMAP, configMap({}), configMap({}, { ownerReferences: [{ kind: 'X', name: 'y', uid: 'u' }] }), /metadata\.ownerReferences/],
    [
      'only the last-applied annotation',
      CONFIGMAP,
      configMap({}),
      configMap({}, { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } }),
      /last-applied-configuration/,
    ],
    ['scaling to zero', DEPLOYMENT, deployment(), { ...deployment(), spec: { ...(deployment().spec as object), replicas: 0 } }, /zero replicas/],
    ['a Deployment delete', DEPLOYMENT, deployment(), null, /deletes a Deployment/, { verb: 'delete' }],
    ['a protected namespace', at('', 'ConfigMap', 'svc'), configMap({}), configMap({ a: 'b' }), /svc is svc's own namespace/],
    ['a Secret', at('', 'Secret'), obj('v1', 'Secret'), obj('v1', 'Secret', { data: { a: 'Yg==' } }), /sensitive kind/],
    [
      'a JSON Patch replace of /metadata that does not repeat the labels',
      CONFIGMAP,
      configMap({}, { labels: { app: 'web' } }),
      configMap({}),
      /removes fields the action does not name: metadata\.labels/,
      { verb: 'patch', patchType: 'json', patch: [{ op: 'replace', path: '/metadata', value: { name: 'web', namespace: 'shop' } }] },
    ],
    ['an apply that drops a field', CONFIGMAP, configMap({ a: '1', b: '2' }), configMap({ a: '1' }), /data\.b/, { verb: 'apply' }],
    ['a field svc has no rule for', CONFIGMAP, configMap({}), { ...configMap({}), spec: { x: 1 } }, /svc does not know what ConfigMap spec\.x does/],
    [
      'a kind svc has no rules for',
      at('acme.io', 'BuildJob'),
      null,
      obj('acme.io/v1', 'BuildJob', { spec: { queue: 'fast' } }),
      /svc has no rules for acme\.io\/BuildJob/,
    ],
  ];
  for (const [name, target, live, result, reason, write] of high)
    it(`high, whatever the label: ${name}`, () => {
      const v = allowed(judge({ target, live, result, ...(write ? { write } : {}), label: 'low' }));
      expect(v.risk, v.riskReasons.join('; ')).to.equal('high');
      expect(v.floor).to.equal('high');
      expect(v.riskReasons.join('; ')).to.match(reason);
    });

  const lower: [string, ResolvedTarget, KubeObject | null, KubeObject | null, 'low' | 'medium', RegExp | undefined, WriteAsSent?][] = [
    [
      'a new tag from the same registry',
      ROLLOUT,
      rollout(),
      rollout({}, { image: 'ghcr.io/acme/web:1.1' }),
      'medium',
      /ghcr\.io\/acme\/web:1\.0 -> ghcr\.io\/acme\/web:1\.1/,
    ],
    ['an env change in a custom resource pod template', ROLLOUT, rollout(), rollout({}, { env: [{ name: 'A', value: 'b' }] }), 'medium', /pods are replaced/],
    ['deleting a Pod', at('', 'Pod'), obj('v1', 'Pod'), null, 'medium', /deletes a Pod/, { verb: 'delete' }],
    ['scaling a Deployment up', DEPLOYMENT, deployment(), { ...deployment(), spec: { ...(deployment().spec as object), replicas: 5 } }, 'low', undefined],
    [
      'a JSON Patch remove of ConfigMap data it names',
      CONFIGMAP,
      configMap({ a: '1', b: '2' }),
      configMap({ a: '1' }),
      'medium',
      /configuration a workload reads/,
      {
        verb: 'patch',
        patchType: 'json',
        patch: [{ op: 'remove', path: '/data/b' }],
      },
    ],
    [
      'a label on a Deployment',
      DEPLOYMENT,
      deployment(),
      { ...deployment(), metadata: { name: 'web', namespace: 'shop', labels: { team: 'a' } } },
      'low',
      undefined,
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
      const v = allowed(judge({ target, live, result, ...(write ? { write } : {}) }));
      expect(v.risk, v.riskReasons.join('; ')).to.equal(risk);
      if (reason) expect(v.riskReasons.join('; ')).to.match(reason);
      else expect(v.riskReasons).to.deep.equal([]);
    });

  it("the model's label only raises the risk, and says so", () => {
    const v = deploymentChange([{}, {}], { result: { ...deployment(), spec: { ...(deployment().spec as object), replicas: 3 } }, label: 'high' });
    expect(v).to.deep.include({ risk: 'high', floor: 'low', riskReasons: ['the proposal labels it high'] });
    expect(allowed(judge({ target: ROLLOUT, live: rollout(), result: rollout({ hostPID: true }), label: 'low' })).risk).to.equal('high');
  });

  it('SVC_IMAGE_REGISTRIES refuses an image from another registry in any container shape; a listed one is known, so a create is medium', () => {
    const settings = { imageRegistries: ['ghcr.io'] };
    const v = judge({ target: ROLLOUT, live: rollout(), result: rollout({}, { image: 'evil.example/miner:latest' }), settings });
    expect(v).to.deep.include({ allowed: false, code: 'ImageRegistry' });
    expect(!v.allowed && v.reason).to.match(/evil\.example\/miner:latest is outside SVC_IMAGE_REGISTRIES \(ghcr\.io\)/);
    const workflow = obj('argoproj.io/v1alpha1', 'Workflow', { spec: { templates: [{ name: 'main', container: { image: 'evil.example/miner:latest' } }] } });
    expect(judge({ target: at('argoproj.io', 'Workflow'), live: null, result: workflow, settings })).to.deep.include({ allowed: false, code: 'ImageRegistry' });
    expect(allowed(judge({ target: ROLLOUT, live: null, result: rollout(), settings })).risk).to.equal('medium');
    expect(allowed(judge({ target: ROLLOUT, live: null, result: rollout() })).risk, 'no allow-list: every registry of a create is new').to.equal('high');
  });

  it('image registries read as a runtime reads them', () => {
    const table: [string, string][] = [
      ['nginx', 'docker.io'],
      ['library/nginx:1', 'docker.io'],
      ['ghcr.io/a/b:1', 'ghcr.io'],
      ['localhost/x', 'localhost'],
      ['registry.example:5000/x@sha256:ab', 'registry.example:5000'],
      ['ghcr.io.evil.example/a:1', 'ghcr.io.evil.example'],
    ];
    for (const [image, registry] of table) expect(imageRegistry(image), image).to.equal(registry);
    expect(findPods(deployment()).map((p) => p.podSpec)).to.deep.equal([true]);
  });
});
