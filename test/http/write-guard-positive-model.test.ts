import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { expectHeld, guardStandIns, type HeldAs } from '../support/guard-stand-ins.js';
import { freshDataDir, ok } from '../support/orgdata-http.js';
import { analysisAnswer, scriptedEnv, webDeployment } from '../support/remediation-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

type Any = any;
const common = { description: 'the fix', risk: 'low', rationale: 'a log line said so' };
/** web in shop, its container `app` running nginx:1.27. */
const web = () => {
  const d = webDeployment('nginx:1.27');
  return { ...d, metadata: { ...d.metadata, namespace: 'shop' } };
};
const WEB = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const patchWeb = (spec: object, container: object = {}, metadata: object = {}) => ({
  type: 'patch',
  target: WEB,
  patch: { spec: { template: { metadata, spec: { ...spec, ...(Object.keys(container).length ? { containers: [{ name: 'app', ...container }] } : {}) } } } },
  ...common,
});
const workflow = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Workflow',
  metadata: { name: 'cleanup', namespace: 'shop' },
  spec: {
    entrypoint: 'main',
    hostPID: true,
    templates: [{ name: 'main', container: { image: 'evil.example/miner:latest', command: ['/mine'], securityContext: { privileged: true } } }],
  },
};
const taskRun = {
  apiVersion: 'tekton.dev/v1',
  kind: 'TaskRun',
  metadata: { name: 'build', namespace: 'shop' },
  spec: { taskSpec: { steps: [{ name: 'build', image: 'nginx:1.27', script: 'id', securityContext: { privileged: true } }] } },
};
const svc = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port: 80 }], loadBalancerSourceRanges: ['10.0.0.0/8'] },
};
const SVC = { apiVersion: 'v1', kind: 'Service', name: 'web', namespace: 'shop' };
const apply = (manifest: object) => ({ type: 'apply', manifest, ...common });

interface Attack extends HeldAs {
  name: string;
  objects?: object[];
  actions: object[];
  env?: Record<string, string>;
  issue?: string;
  maxRiskLevel?: 'low' | 'medium' | 'high';
}

/** Issue 40's findings, each as a manipulated model proposes it in automatic mode. */
const ATTACKS: Attack[] = [
  {
    name: 'a privileged, host-PID Argo Workflow from an unknown registry (spec.templates[].container)',
    actions: [apply(workflow)],
    high: /svc has no rules for argoproj\.io\/Workflow.*|hostPID: true/,
  },
  {
    name: 'the same Workflow with SVC_KIND_RISK=argoproj.io/Workflow=low: the pod in it is still judged',
    env: { SVC_KIND_RISK: 'argoproj.io/Workflow=low' },
    actions: [apply(workflow)],
    high: /hostPID: true breaks the baseline.*securityContext\.privileged: true breaks the baseline.*registry evil\.example, new/,
  },
  {
    name: 'the same Workflow past SVC_IMAGE_REGISTRIES and the second approver: refused',
    env: { SVC_IMAGE_REGISTRIES: 'ghcr.io,docker.io', SVC_REQUIRE_SECOND_APPROVER: 'true' },
    actions: [apply(workflow)],
    refused: { reason: 'ImageRegistry', message: /evil\.example\/miner:latest is outside SVC_IMAGE_REGISTRIES/ },
  },
  {
    name: 'the same Workflow with maxRiskLevel high and SVC_REQUIRE_SECOND_APPROVER: its high risk needs a second approver',
    env: { SVC_KIND_RISK: 'argoproj.io/Workflow=low', SVC_REQUIRE_SECOND_APPROVER: 'true' },
    maxRiskLevel: 'high',
    actions: [apply(workflow)],
    high: /hostPID: true breaks the baseline/,
    notExecuted: /a second approver is needed/,
  },
  {
    name: 'a Tekton TaskRun with a privileged step',
    env: { SVC_KIND_RISK: 'tekton.dev/TaskRun=low' },
    actions: [apply(taskRun)],
    high: /step build securityContext\.privileged: true breaks the baseline/,
  },
  {
    name: 'serviceAccountName of a powerful account',
    objects: [web()],
    actions: [patchWeb({ serviceAccountName: 'cluster-admin-sa' })],
    high: /service account cluster-admin-sa/,
  },
  { name: 'nodeName of a control-plane node', objects: [web()], actions: [patchWeb({ nodeName: 'cp-1' })], high: /binds the pod to a node past the scheduler/ },
  {
    name: 'seccompProfile Unconfined',
    objects: [web()],
    actions: [patchWeb({ securityContext: { seccompProfile: { type: 'Unconfined' } } })],
    high: /\(Seccomp\)/,
  },
  {
    name: 'a sysctls entry',
    objects: [web()],
    actions: [patchWeb({ securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '65536' }] } })],
    high: /\(Sysctls\)/,
  },
  { name: 'procMount Unmasked', objects: [web()], actions: [patchWeb({}, { securityContext: { procMount: 'Unmasked' } })], high: /\(\/proc Mount Type\)/ },
  {
    name: 'windowsOptions.hostProcess',
    objects: [web()],
    actions: [patchWeb({ securityContext: { windowsOptions: { hostProcess: true } } })],
    high: /\(HostProcess\)/,
  },
  {
    name: 'an AppArmor annotation unconfined',
    objects: [web()],
    actions: [patchWeb({}, {}, { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' } })],
    high: /\(AppArmor\)/,
  },
  {
    name: "an env var read from another app's Secret",
    objects: [web()],
    actions: [patchWeb({}, { env: [{ name: 'DB', valueFrom: { secretKeyRef: { name: 'payments-db', key: 'password' } } }] })],
    high: /reads Secret payments-db, which it did not read before/,
  },
  {
    name: 'a Service selector pointed at another app',
    objects: [{ ...svc, spec: { ...svc.spec, type: 'ClusterIP', loadBalancerSourceRanges: undefined } }],
    actions: [{ type: 'patch', target: SVC, patch: { spec: { selector: { app: 'payments' } } }, ...common }],
    high: /spec\.selector\.app: changes which pods and ports receive its traffic/,
  },
  {
    name: 'loadBalancerSourceRanges opened to 0.0.0.0/0',
    objects: [svc],
    actions: [{ type: 'patch', target: SVC, patch: { spec: { loadBalancerSourceRanges: ['0.0.0.0/0'] } }, ...common }],
    high: /opens the Service \(0\.0\.0\.0\/0\)/,
  },
  {
    name: 'a new Ingress to an internal Service',
    actions: [
      apply({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'admin', namespace: 'shop' },
        spec: {
          rules: [
            { host: 'admin.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'admin', port: { number: 80 } } } }] } },
          ],
        },
      }),
    ],
    high: /routes or exposes traffic/,
  },
  {
    name: 'an Istio allow-all AuthorizationPolicy',
    actions: [
      apply({
        apiVersion: 'security.istio.io/v1',
        kind: 'AuthorizationPolicy',
        metadata: { name: 'allow-all', namespace: 'shop' },
        spec: { action: 'ALLOW', rules: [{}] },
      }),
    ],
    maxRiskLevel: 'high',
    high: /service-mesh security/,
    notExecuted: /automatic mode never writes/,
  },
  {
    name: 'an issue saying "fails with the default settings" does not name namespace default',
    objects: [{ ...web(), metadata: { name: 'web', namespace: 'default' } }],
    issue: 'web fails with the default settings',
    maxRiskLevel: 'high',
    actions: [{ type: 'scale', target: { ...WEB, namespace: 'default' }, replicas: 2, ...common }],
    notExecuted: /the issue never names namespace default/,
  },
];

describe('the write guard as a positive model over HTTP: issue 40, each finding against the Kubernetes stand-in', () => {
  const { s, persisted } = guardStandIns(['shop', 'default']);
  /** remediate in automatic mode with a scripted investigation proposing `actions` (then a verification answer, should it execute). */
  const remediate = async (env: Record<string, string> | Express, actions: object[], issue: string, maxRiskLevel: string, extra: object = {}) => {
    s.chat.script(
      { content: 'found it' },
      { content: analysisAnswer({ confidence: 0.99, actions }) },
      { content: JSON.stringify({ resolved: true, summary: 'ok' }) },
    );
    const app = typeof env === 'function' ? env : buildTestApp({ ...scriptedEnv(s.chat, s.kube), ...env }).app;
    const res = await request(app)
      .post('/api/v1/tools/remediate')
      .set(auth)
      .send({ issue, mode: 'automatic', maxRiskLevel, confidenceThreshold: 0.1, ...extra })
      .expect(200);
    return res.body.data.result as Any;
  };

  for (const attack of ATTACKS)
    it(attack.name, async () => {
      for (const o of attack.objects ?? []) s.kube.put(JSON.parse(JSON.stringify(o)));
      const view = await remediate(attack.env ?? {}, attack.actions, attack.issue ?? 'web in namespace shop is broken', attack.maxRiskLevel ?? 'medium');
      expectHeld(view, attack);
      expect(persisted()).to.deep.equal([]);
    });

  it('a stored policy against privileged containers refuses the Workflow: the policy sees the pod in spec.templates[].container', async () => {
    const env = { SVC_DATA_DIR: freshDataDir(), SVC_EMBEDDINGS_PROVIDER: 'local', SVC_KIND_RISK: 'argoproj.io/Workflow=low' };
    const { app } = buildTestApp({ ...scriptedEnv(s.chat, s.kube), ...env });
    const constraints = [{ kind: '*', field: 'spec.containers[].securityContext.privileged', allowedValues: [false], message: 'no privileged containers' }];
    await ok(app, {
      dataType: 'policy',
      operation: 'create',
      document: { description: 'No privileged containers', triggers: ['privileged'], rationale: 'platform rule', createdBy: 'platform-team', constraints },
    });
    const view = await remediate(app, [apply(workflow)], 'cleanup in namespace shop', 'high');
    expect(view.actions[0].dryRun.reason).to.equal('PolicyViolation');
    expect(view.actions[0].dryRun.message).to.match(/No privileged containers.*spec\.templates\[name=main\]\.containers\[0\]\.securityContext\.privileged/);
    expect(view.automaticExecution.executed).to.equal(false);
    expect(persisted()).to.deep.equal([]);
  });

  it('in a namespace that enforces restricted, a tag change to a pod that runs as root is high; what the baseline allows stays medium where it does not', async () => {
    s.kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } });
    s.kube.put(web());
    const view = await remediate({}, [patchWeb({}, { image: 'nginx:1.25' })], 'web in namespace shop is broken', 'medium');
    expect(view.actions[0].risk).to.equal('high');
    expect(view.actions[0].riskReasons.join('; ')).to.match(/breaks the restricted Pod Security Standard.*enforce label enforces restricted/);
    expect(persisted()).to.deep.equal([]);
  });

  it('the namespace input names the namespace: an issue that names none is written automatically only with it', async () => {
    s.kube.put(web());
    const scale = { type: 'scale', target: WEB, replicas: 3, ...common };
    const unnamed = await remediate({}, [scale], 'web is slow under load', 'low');
    expect(unnamed.automaticExecution.reason).to.match(/the issue never names namespace shop/);
    expect(persisted()).to.deep.equal([]);
    const named = await remediate({}, [scale], 'web is slow under load', 'low', { namespace: 'shop' });
    expect(named.automaticExecution.executed).to.equal(true);
    expect((s.kube.objects.get('/apis/apps/v1/namespaces/shop/deployments/web') as Any).spec.replicas).to.equal(3);
  });

  it('capabilities the baseline permits are not raised for that reason: medium, and automatic mode applies them within maxRiskLevel medium', async () => {
    s.kube.put(web());
    const caps = patchWeb({}, { securityContext: { capabilities: { add: ['NET_BIND_SERVICE', 'CHOWN'] } }, ports: [{ containerPort: 80, hostPort: 0 }] });
    const view = await remediate({}, [caps], 'web in namespace shop cannot bind port 80', 'medium');
    expect(view.actions[0].risk, JSON.stringify(view.actions[0].riskReasons)).to.equal('medium');
    expect(view.automaticExecution.executed).to.equal(true);
    const stored = s.kube.objects.get('/apis/apps/v1/namespaces/shop/deployments/web') as Any;
    expect(stored.spec.template.spec.containers[0].securityContext.capabilities.add).to.deep.equal(['NET_BIND_SERVICE', 'CHOWN']);
  });
});
