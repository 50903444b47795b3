import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { defaultScenariosDir } from '../../lab/evaluation/scenario-loader.js';
import { runCli, startCli } from '../support/run-cli.js';
import { startAccessServer, TEST_TOKEN } from '../support/access-server.js';

describe('svc sandbox --clusters N: N sandbox clusters behind one kubeconfig', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-sandbox-fleet-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('serves three clusters, a context each; svc with SVC_CLUSTERS=* serves them all; placement puts a file in some clusters only', async () => {
    // the scenario's objects in clusters 1 and 3 only
    const scenarios = path.join(dir, 'scenarios');
    cpSync(path.join(defaultScenariosDir(), 'web-image-tag-typo'), path.join(scenarios, 'web-image-tag-typo'), { recursive: true });
    const file = path.join(scenarios, 'web-image-tag-typo', 'scenario.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('  objects: [cluster.yaml]\n', '  objects: [cluster.yaml]\n  placement: { cluster.yaml: [1, 3] }\n'),
    );
    const kubeconfig = path.join(dir, 'kc.yaml');
    const { child, output, exited } = startCli([
      'sandbox',
      '--scenario',
      'web-image-tag-typo',
      '--clusters',
      '3',
      '--kubeconfig',
      kubeconfig,
      '--scenario-dir',
      scenarios,
    ]);
    try {
      for (let i = 0; i < 600 && !/^ready /m.test(output()); i++) await new Promise((r) => setTimeout(r, 50));
      const contexts = ['sandbox-web-image-tag-typo-1', 'sandbox-web-image-tag-typo-2', 'sandbox-web-image-tag-typo-3'];
      expect(output()).to.contain(`ready 3 clusters scenario web-image-tag-typo kubeconfig ${kubeconfig} contexts ${contexts.join(',')}`);
      expect(statSync(kubeconfig).mode & 0o777).to.equal(0o600);
      expect((parse(readFileSync(kubeconfig, 'utf8')) as { contexts: { name: string }[] }).contexts.map((c) => c.name)).to.deep.equal(contexts);

      const server = await startAccessServer({ env: { KUBECONFIG: kubeconfig, SVC_CLUSTERS: '*' } });
      try {
        const res = await fetch(`${server.url}/api/v1/clusters`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
        const clusters = ((await res.json()) as { data: { clusters: { name: string; reachable: boolean }[] } }).data.clusters;
        expect(clusters.map((c) => [c.name, c.reachable])).to.deep.equal(contexts.map((c) => [c, true]));
      } finally {
        await server.stop();
      }
      const deployments = async (context: string) => {
        const { createClusterClient } = await import('../../infrastructure/kubernetes/create-cluster-client.js');
        const { loadConfig } = await import('../../infrastructure/config/config.js');
        const client = createClusterClient(loadConfig({ KUBECONFIG: kubeconfig, SVC_DATA_DIR: dir }).cluster, context);
        return (await client.list({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop' })).items.map((d) => d.metadata.name);
      };
      expect(await deployments(contexts[0])).to.deep.equal(['web']);
      expect(await deployments(contexts[1])).to.deep.equal([]);
      expect(await deployments(contexts[2])).to.deep.equal(['web']);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).to.equal(0);
  });

  it('refuses a --clusters that is not 1 to 16, and --try with several', async () => {
    for (const n of ['0', '17', 'many']) {
      const run = await runCli(['sandbox', '--scenario', 'web-image-tag-typo', '--clusters', n, '--kubeconfig', path.join(dir, 'k')]);
      expect(run.code, n).to.equal(2);
      expect(run.stderr).to.contain('--clusters must be a number from 1 to 16');
    }
    const tried = await runCli(['sandbox', '--scenario', 'web-image-tag-typo', '--clusters', '2', '--try']);
    expect(tried.code).to.equal(2);
  });
});
