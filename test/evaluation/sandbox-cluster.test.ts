import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultScenariosDir, loadScenario, type LoadedScenario } from '../../lab/evaluation/scenario-loader.js';
import { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';
import { createClusterClient } from '../../infrastructure/kubernetes/create-cluster-client.js';
import { loadConfig } from '../../infrastructure/config/config.js';

type Any = any;

/** A scenario with its rules replaced: one workload `api` in `shop`, governed by `rule`. */
function withRule(rule: Record<string, unknown>, logs: unknown[] = []): LoadedScenario {
  const base = loadScenario(defaultScenariosDir(), 'api-config-key-renamed');
  const scenario = { ...base.scenario, cluster: { ...base.scenario.cluster, rules: [rule as Any] } };
  return { ...base, scenario, logs: logs as Any };
}

const API = { kind: 'Deployment', namespace: 'shop', name: 'api' };
const cm = (op: Record<string, unknown>) => ({ object: { kind: 'ConfigMap', namespace: 'shop', name: 'api-config' }, path: 'data.DATABASE_URL', ...op });
const pods = (s: ScenarioCluster): Any[] => [...s.server.objects.values()].filter((o) => o.kind === 'Pod');
const events = (s: ScenarioCluster): Any[] => [...s.server.objects.values()].filter((o) => o.kind === 'Event');

describe('the sandbox: a scenario served as a Kubernetes API', function () {
  this.timeout(30_000);
  let sandbox: ScenarioCluster | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('settles into the broken state: crash loop with the rule log, previous logs, BackOff events; same pod names every run', async () => {
    const loaded = loadScenario(defaultScenariosDir(), 'api-config-key-renamed');
    sandbox = await ScenarioCluster.start(loaded);
    const [pod] = pods(sandbox);
    const cs = pod.status.containerStatuses[0];
    expect(cs.state.waiting.reason).to.equal('CrashLoopBackOff');
    expect(cs.lastState.terminated).to.include({ exitCode: 1, reason: 'Error' });
    expect(cs.restartCount).to.be.greaterThan(0);
    expect(sandbox.server.previousLogs.get(`shop/${pod.metadata.name}/api`)).to.contain('DATABASE_URL is not set');
    expect(events(sandbox).some((e) => e.reason === 'BackOff' && e.type === 'Warning')).to.equal(true);
    expect(sandbox.health().healthy).to.equal(false);
    const again = await ScenarioCluster.start(loaded);
    expect(pods(again).map((p) => p.metadata.name)).to.deep.equal(pods(sandbox).map((p) => p.metadata.name));
    await again.close();
  });

  it('a fix of the object a rule reads takes effect at the next restart; health then holds', async () => {
    sandbox = await ScenarioCluster.start(loadScenario(defaultScenariosDir(), 'api-config-key-renamed'));
    const cmap: Any = [...sandbox.server.objects.values()].find((o) => o.kind === 'ConfigMap');
    cmap.data.DATABASE_URL = 'postgres://db/shop';
    const report = sandbox.health();
    expect(report).to.deep.equal({ healthy: true, problems: [] });
    expect(pods(sandbox)[0].status.containerStatuses[0].ready).to.equal(true);
  });

  it('notReady: running, never Ready, Unhealthy events with the probe message', async () => {
    const message = 'Readiness probe failed: HTTP probe failed with statuscode: 503';
    sandbox = await ScenarioCluster.start(
      withRule({ description: 'ready', workload: API, healthyWhen: [cm({ exists: true })], whileBroken: { notReady: { message } } }),
    );
    const cs = pods(sandbox)[0].status.containerStatuses[0];
    expect(cs.state.running).to.not.equal(undefined);
    expect(cs.ready).to.equal(false);
    expect(events(sandbox).find((e) => e.reason === 'Unhealthy')?.message).to.equal(message);
    expect(sandbox.health().problems.join()).to.contain('ready: not yet');
  });

  it('pending: unscheduled with the scheduler reason, scheduled and started once the rule holds', async () => {
    const message = '0/1 nodes are available: 1 Insufficient memory.';
    sandbox = await ScenarioCluster.start(
      withRule({
        description: 'fits',
        workload: API,
        healthyWhen: [cm({ exists: true })],
        whileBroken: { pending: { reason: 'FailedScheduling', message, component: 'default-scheduler' } },
      }),
    );
    const pod = pods(sandbox)[0];
    expect(pod.status.phase).to.equal('Pending');
    expect(pod.spec.nodeName).to.equal(undefined);
    expect(pod.status.conditions[0]).to.include({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message });
    expect(events(sandbox).some((e) => e.reason === 'FailedScheduling' && e.message === message)).to.equal(true);
    ([...sandbox.server.objects.values()].find((o) => o.kind === 'ConfigMap') as Any).data.DATABASE_URL = 'x';
    expect(sandbox.health().healthy).to.equal(true);
    expect(pods(sandbox)[0].spec.nodeName).to.equal('kind-worker');
  });

  it('scaling the broken workload to 0 or deleting it is never healthy', async () => {
    sandbox = await ScenarioCluster.start(loadScenario(defaultScenariosDir(), 'api-config-key-renamed'));
    const deploy: Any = [...sandbox.server.objects.values()].find((o) => o.kind === 'Deployment');
    deploy.spec.replicas = 0;
    sandbox.server.reconcile();
    expect(sandbox.health().problems).to.include('Deployment shop/api is scaled to 0');
    sandbox.server.remove(deploy);
    expect(sandbox.health().problems).to.include('Deployment shop/api no longer exists');
  });

  it('a workload that rolled out but serves nobody is not healthy: its Service needs ready endpoints', async () => {
    const loaded = loadScenario(defaultScenariosDir(), 'svc-selector-label-mismatch');
    sandbox = await ScenarioCluster.start({ ...loaded, scenario: { ...loaded.scenario, cluster: { ...loaded.scenario.cluster, rules: [] } } });
    expect(sandbox.health().problems).to.deep.equal(['Service store/web has no ready endpoints']);
    // relabelling the pods to the Service's selector is as good a fix as changing the selector: both serve
    const svc: Any = [...sandbox.server.objects.values()].find((o) => o.kind === 'Service' && o.metadata.name === 'web');
    const deploy: Any = [...sandbox.server.objects.values()].find((o) => o.kind === 'Deployment' && o.metadata.name === 'web');
    deploy.spec.template.metadata.labels = { ...deploy.spec.template.metadata.labels, ...svc.spec.selector };
    deploy.metadata.generation += 1;
    sandbox.server.reconcile();
    expect(sandbox.health()).to.deep.equal({ healthy: true, problems: [] });
  });

  it('writes a kubeconfig (CA inline, token) the real Kubernetes client reads it with over TLS', async () => {
    sandbox = await ScenarioCluster.start(loadScenario(defaultScenariosDir(), 'web-image-tag-typo'));
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-sandbox-kc-'));
    try {
      const file = path.join(dir, 'kubeconfig');
      sandbox.writeKubeconfig(file);
      const client = createClusterClient(loadConfig({ KUBECONFIG: file, SVC_DATA_DIR: dir }).cluster);
      const page = await client.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'shop' });
      expect(page.items.map((p) => p.metadata.name)).to.have.length(2);
      expect((await client.listApiResources()).some((r) => r.kind === 'Deployment')).to.equal(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
