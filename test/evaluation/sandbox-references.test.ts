import { expect } from 'chai';
import { scenarioSchema } from '../../domain/evaluation/scenario.js';
import type { LoadedScenario } from '../../lab/evaluation/scenario-loader.js';
import { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';
import { targetPortResolves } from '../../lab/sandbox/service-backends.js';
import { itJudgesFixes, restartDeployment } from '../support/sandbox-scenario.js';

type Any = any;

/**
 * What the sandbox decides from references between objects, with no rule:
 * a container whose environment names a ConfigMap or Secret key that does not
 * exist is never created (CreateContainerConfigError), a Service's named
 * targetPort needs a pod port of that name, and an Ingress backend needs its
 * Service, its port and a ready pod behind it. Each both ways: broken, then
 * healthy whichever side of the reference the fix changes.
 */

const NS = 'shop';
const IMAGE = 'registry.example/app:1';

function scenario(objects: Any[]): LoadedScenario {
  const parsed = scenarioSchema.parse({
    name: 'references-under-test',
    title: 'references under test',
    tags: ['easy', 'config'],
    tool: 'remediate',
    input: { issue: 'something in shop is wrong' },
    cluster: { namespaces: [NS], objects: ['cluster.yaml'], images: { [IMAGE]: 16 }, rules: [] },
    expect: { healthy: true, budget: { modelCalls: 5, tokens: 1000 } },
  });
  return { dir: '/nonexistent', scenario: parsed, objects, logs: [] };
}

const object = (kind: string, name: string, rest: Any = {}) => ({ apiVersion: 'v1', kind, metadata: { name, namespace: NS }, ...rest });

function workload(kind: 'Deployment' | 'Job', name: string, container: Any): Any {
  const template = { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: IMAGE, ...container }] } };
  if (kind === 'Job')
    return {
      apiVersion: 'batch/v1',
      kind,
      metadata: { name, namespace: NS },
      spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } },
    };
  return { apiVersion: 'apps/v1', kind, metadata: { name, namespace: NS }, spec: { replicas: 2, selector: { matchLabels: { app: name } }, template } };
}

const keyRef = (source: 'configMapKeyRef' | 'secretKeyRef', name: string, key: string, optional?: boolean) => ({
  env: [{ name: 'VALUE', valueFrom: { [source]: { name, key, ...(optional === undefined ? {} : { optional }) } } }],
});

const pods = (s: ScenarioCluster): Any[] => [...s.server.objects.values()].filter((o) => o.kind === 'Pod');
const live = (s: ScenarioCluster, kind: string, name: string): Any => [...s.server.objects.values()].find((o) => o.kind === kind && o.metadata.name === name);
const waiting = (s: ScenarioCluster) => pods(s).map((p) => p.status.containerStatuses[0].state.waiting);

describe('the sandbox follows references between objects', function () {
  this.timeout(30_000);
  let sandbox: ScenarioCluster | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  describe("a container's environment from ConfigMaps and Secrets (CreateContainerConfigError)", () => {
    it("a secretKeyRef to a key the Secret lacks: Pending in CreateContainerConfigError with the kubelet's words; healthy once the Secret has the key", async () => {
      const secret = object('Secret', 'stripe', { data: { 'secret-key': Buffer.from('x').toString('base64') } });
      sandbox = await ScenarioCluster.start(scenario([secret, workload('Deployment', 'payments', keyRef('secretKeyRef', 'stripe', 'api-key'))]));
      expect(pods(sandbox).map((p) => p.status.phase)).to.deep.equal(['Pending', 'Pending']);
      expect(waiting(sandbox)[0]).to.deep.equal({ reason: 'CreateContainerConfigError', message: `couldn't find key api-key in Secret ${NS}/stripe` });
      const events = [...sandbox.server.objects.values()].filter((o) => o.kind === 'Event' && o.reason === 'Failed');
      expect(events.map((e) => e.message)).to.include(`Error: couldn't find key api-key in Secret ${NS}/stripe`);
      expect(sandbox.health().problems.join('\n')).to.match(/Deployment shop\/payments/);
      live(sandbox, 'Secret', 'stripe').data['api-key'] = Buffer.from('y').toString('base64');
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
    });

    it('or once the workload names a key that exists (the pods it rolls out start)', async () => {
      const secret = object('Secret', 'stripe', { data: { 'secret-key': 'eA==' } });
      sandbox = await ScenarioCluster.start(scenario([secret, workload('Deployment', 'payments', keyRef('secretKeyRef', 'stripe', 'api-key'))]));
      expect(sandbox.health().healthy).to.equal(false);
      const d = live(sandbox, 'Deployment', 'payments');
      d.spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.key = 'secret-key';
      d.metadata.generation += 1;
      sandbox.server.reconcile();
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
    });

    it('a missing ConfigMap, by key or by envFrom, says it is not found; an optional reference never blocks', async () => {
      sandbox = await ScenarioCluster.start(
        scenario([
          workload('Deployment', 'a', keyRef('configMapKeyRef', 'settings', 'MODE')),
          workload('Deployment', 'b', { envFrom: [{ configMapRef: { name: 'settings' } }] }),
          workload('Deployment', 'c', keyRef('configMapKeyRef', 'settings', 'MODE', true)),
        ]),
      );
      const byApp = (app: string) => pods(sandbox!).filter((p) => p.metadata.labels.app === app);
      expect(byApp('a')[0].status.containerStatuses[0].state.waiting.message).to.equal('configmap "settings" not found');
      expect(byApp('b')[0].status.containerStatuses[0].state.waiting.message).to.equal('configmap "settings" not found');
      expect(byApp('c').every((p) => p.status.phase === 'Running')).to.equal(true);
    });

    it('a Job whose pod cannot be created waits without failing, and completes once the ConfigMap gains the key', async () => {
      const settings = object('ConfigMap', 'billing', { data: { INVOICE_BUCKET_NAME: 'invoices' } });
      sandbox = await ScenarioCluster.start(scenario([settings, workload('Job', 'invoice-run', keyRef('configMapKeyRef', 'billing', 'S3_BUCKET'))]));
      const job = live(sandbox, 'Job', 'invoice-run');
      expect(job.status.active).to.equal(1);
      expect(job.status.failed).to.equal(undefined);
      expect(waiting(sandbox)[0].reason).to.equal('CreateContainerConfigError');
      expect(sandbox.health().problems.join('\n')).to.match(/Job shop\/invoice-run has not completed/);
      live(sandbox, 'ConfigMap', 'billing').data.S3_BUCKET = 'invoices';
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
      expect(live(sandbox, 'Job', 'invoice-run').status.succeeded).to.equal(1);
    });
  });

  describe("a Service's named targetPort and an Ingress's backends", () => {
    const service = (targetPort: string | number, portName = 'http') =>
      object('Service', 'inventory', { spec: { selector: { app: 'inventory' }, ports: [{ name: portName, port: 80, targetPort }] } });
    const inventory = (portName: string) => workload('Deployment', 'inventory', { ports: [{ name: portName, containerPort: 8080 }] });
    const ingress = (backend: Any) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'shop', namespace: NS },
      spec: { rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: backend } }] } }] },
    });

    it('a name resolves only in a pod declaring it; a number always', () => {
      const pod = { spec: { containers: [{ ports: [{ name: 'api', containerPort: 8080 }] }] } };
      expect([
        targetPortResolves({ targetPort: 'api' }, pod),
        targetPortResolves({ targetPort: 'http' }, pod),
        targetPortResolves({ targetPort: 8080 }, pod),
      ]).to.deep.equal([true, false, true]);
      expect(targetPortResolves({ port: 80 }, { spec: { containers: [{}] } })).to.equal(true);
    });

    for (const [fix, change] of [
      ['the Service targets the number', (s: ScenarioCluster) => (live(s, 'Service', 'inventory').spec.ports[0].targetPort = 8080)],
      ["the Service targets the pods' name", (s: ScenarioCluster) => (live(s, 'Service', 'inventory').spec.ports[0].targetPort = 'api')],
    ] as const)
      it(`ready pods that do not declare the Service's targetPort name are no endpoints; healthy once ${fix}`, async () => {
        sandbox = await ScenarioCluster.start(scenario([service('http'), inventory('api')]));
        expect(pods(sandbox).every((p) => p.status.phase === 'Running')).to.equal(true);
        expect(sandbox.health().problems).to.deep.equal(['Service shop/inventory has no ready endpoints']);
        change(sandbox);
        expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
      });

    it('an Ingress backend whose Service does not exist, or lacks the named port, serves nothing', async () => {
      sandbox = await ScenarioCluster.start(scenario([service(8080, 'web'), inventory('api'), ingress({ name: 'inventory', port: { name: 'http' } })]));
      expect(sandbox.health().problems).to.deep.equal(['Ingress shop/shop: Service "shop/inventory" does not have any port named http']);
      live(sandbox, 'Ingress', 'shop').spec.rules[0].http.paths[0].backend.service = { name: 'inventory-web', port: { number: 80 } };
      expect(sandbox.health().problems).to.deep.equal(['Ingress shop/shop: Service "shop/inventory-web" does not exist']);
      live(sandbox, 'Ingress', 'shop').spec.rules[0].http.paths[0].backend.service = { name: 'inventory', port: { number: 80 } };
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
    });

    it('renaming the Service port to what the Ingress names serves as well; a port with no ready pod behind it does not', async () => {
      sandbox = await ScenarioCluster.start(scenario([service(8080, 'web'), inventory('api'), ingress({ name: 'inventory', port: { name: 'http' } })]));
      live(sandbox, 'Service', 'inventory').spec.ports[0].name = 'http';
      expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
      live(sandbox, 'Service', 'inventory').spec.ports[0].targetPort = 'metrics';
      expect(sandbox.health().problems).to.include('Ingress shop/shop: Service "shop/inventory" port http has no ready endpoints');
    });
  });

  describe('the scenarios built on them: every valid fix passes, a generic one does not', () => {
    const template = (s: ScenarioCluster, kind: string, name: string) => live(s, kind, name).spec.template.spec.containers[0];
    const rolled = (s: ScenarioCluster, kind: string, name: string) => {
      live(s, kind, name).metadata.generation += 1;
      s.server.reconcile();
    };
    const memoryLimit = (name: string, limit: string) => (s: ScenarioCluster) => {
      template(s, 'Deployment', name).resources.limits.memory = limit;
      rolled(s, 'Deployment', name);
    };
    itJudgesFixes([
      ['multihop-storefront-inventory-port-name', 'the Service targets 8080', true, (s) => (live(s, 'Service', 'inventory').spec.ports[0].targetPort = 8080)],
      [
        'multihop-storefront-inventory-port-name',
        'the pods name their port http again',
        true,
        (s) => {
          template(s, 'Deployment', 'inventory').ports[0].name = 'http';
          rolled(s, 'Deployment', 'inventory');
        },
      ],
      [
        'multihop-storefront-inventory-port-name',
        'a restart of storefront and inventory',
        false,
        (s) => ['storefront', 'inventory'].forEach((name) => restartDeployment(name)(s)),
      ],
      [
        'ingress-service-renamed',
        'a Service gallery exists again',
        true,
        (s) =>
          s.server.create({
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'gallery', namespace: 'media' },
            spec: { selector: { app: 'gallery' }, ports: [{ port: 80, targetPort: 'http' }] },
          }),
      ],
      [
        'ingress-backend-port-name-missing',
        "the Service's port is called http again",
        true,
        (s) => (live(s, 'Service', 'helpdesk').spec.ports[0].name = 'http'),
      ],
      [
        'ingress-backend-port-name-missing',
        'the Ingress names port 80',
        true,
        (s) => (live(s, 'Ingress', 'helpdesk').spec.rules[0].http.paths[0].backend.service.port = { number: 80 }),
      ],
      ['job-reindex-parallelism-rejected', 'parallelism 1', true, (s) => (live(s, 'Job', 'reindex-products').spec.parallelism = 1)],
      ['job-reindex-parallelism-rejected', 'more parallelism', false, (s) => (live(s, 'Job', 'reindex-products').spec.parallelism = 8)],
      ['job-invoice-run-configmap-key', 'the old key name back', true, (s) => (live(s, 'ConfigMap', 'billing-settings').data.S3_BUCKET = 'acme-invoices-eu')],
      ['multihop-login-redis-sessions-oom', 'a 1Gi limit for redis-sessions', true, memoryLimit('redis-sessions', '1Gi')],
      ['multihop-login-redis-sessions-oom', 'a limit still below what its data needs', false, memoryLimit('redis-sessions', '800Mi')],
      ['multihop-login-redis-sessions-oom', "more memory for login (the first workload's generic fix)", false, memoryLimit('login', '1Gi')],
    ]);
  });
});
