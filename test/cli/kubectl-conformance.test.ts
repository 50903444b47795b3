import { execFile, execFileSync, spawn } from 'node:child_process';
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';
import { ScenarioCluster } from '../../lab/sandbox/scenario-cluster.js';

/** The kubectl on the PATH, if any (CI installs Debian's kubernetes-client when none is there: .ci/run). */
function findKubectl(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'kubectl');
    if (dir && existsSync(file)) return file;
  }
  return undefined;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A real kubectl against `svc sandbox`'s cluster (the scenario web-image-tag-typo,
 * time on the wall clock as `svc sandbox` serves it): every command a user would
 * try answers as a real cluster's would, with nothing on stderr.
 */
describe('kubectl against the sandbox (conformance)', function () {
  this.timeout(180_000);
  const kubectl = findKubectl();
  let dir: string;
  let sandbox: ScenarioCluster;
  let kubeconfig: string;

  const run = (args: string[], input?: string): Promise<Ran> =>
    new Promise((resolve) => {
      const child = execFile(
        kubectl!,
        ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args],
        { env: { PATH: process.env.PATH ?? '', HOME: dir, KUBECACHEDIR: path.join(dir, 'cache') }, timeout: 120_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      if (input !== undefined) child.stdin!.end(input);
    });
  const ok = async (args: string[], input?: string) => {
    const r = await run(args, input);
    expect(r.code, `kubectl ${args.join(' ')}\n${r.stderr}`).to.equal(0);
    expect(r.stderr, `kubectl ${args.join(' ')}`).to.equal('');
    return r.stdout;
  };
  const file = (name: string, text: string) => {
    const f = path.join(dir, name);
    writeFileSync(f, text);
    return f;
  };

  before(async function () {
    if (!kubectl) {
      console.log("    (skipped: no kubectl on the PATH; install kubectl or Debian's kubernetes-client to run the conformance test)");
      this.skip();
    }
    const minor = kubectlMinor(kubectl);
    if (minor < MIN_KUBECTL_MINOR) {
      console.log(`    (skipped: kubectl 1.${minor} is older than the 1.${MIN_KUBECTL_MINOR} this test drives: \`kubectl events\` and OpenAPI v3 came later)`);
      this.skip();
    }
    dir = mkdtempSync(path.join(tmpdir(), 'svc-kubectl-'));
    sandbox = await ScenarioCluster.start(loadScenario(defaultScenariosDir(), 'web-image-tag-typo'), { wallClock: true });
    kubeconfig = path.join(dir, 'kubeconfig.yaml');
    sandbox.writeKubeconfig(kubeconfig);
  });
  after(async () => {
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('api-resources: the served kinds with their group versions and short names, and no aggregated API that fails', async () => {
    const out = await ok(['api-resources']);
    expect(out).to.match(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    expect(out).to.match(/^pods\s+po\s+v1\s+true\s+Pod$/m);
    expect(out).not.to.contain('metrics.k8s.io');
  });

  it('get: pods as the server prints them (READY, STATUS, RESTARTS, AGE from the wall clock), apps lists, all, nodes', async () => {
    const pods = (await ok(['get', 'pods'])).trim().split('\n');
    expect(pods[0]).to.match(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    expect(pods.slice(1)).to.have.length(2);
    for (const line of pods.slice(1)) expect(line).to.match(/^web-\w+-\w+\s+0\/1\s+ImagePullBackOff\s+0\s+(\d+s|\d+m(\d+s)?)$/);
    expect(await ok(['get', 'deploy'])).to.match(/^web\s+0\/2\s+2\s+0\s+\S+$/m);
    const all = await ok(['get', 'all']);
    for (const name of ['pod/web-', 'service/web', 'deployment.apps/web', 'replicaset.apps/web-']) expect(all).to.contain(name);
    const wide = await ok(['get', 'pods', '-o', 'wide']);
    expect(wide.split('\n')[0]).to.match(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/);
    expect(await ok(['get', 'nodes'])).to.match(/^kind-worker\s+Ready\s+<none>\s+\S+\s+v1\.31\.2$/m);
  });

  it('describe, events and explain', async () => {
    const pod = (await ok(['get', 'pods', '-o', 'name'])).trim().split('\n')[0];
    const described = await ok(['describe', pod]);
    expect(described).to.match(/^Node:\s+kind-worker\/172\.18\.0\.2$/m);
    expect(described).to.match(/Reason:\s+ImagePullBackOff/);
    expect(await ok(['events'])).to.match(/Scaled up replica set web-\w+ to 2/);
    const explained = await ok(['explain', 'deployment.spec.replicas']);
    expect(explained).to.match(/KIND:\s+Deployment/);
    expect(explained).to.match(/FIELD: replicas <integer>/);
  });

  it('apply validates on the server (no --validate=false): creates, then refuses an unknown field', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n';
    expect(await ok(['apply', '-f', file('cm.yaml', cm)])).to.equal('configmap/settings created\n');
    const bad = await run(['apply', '-f', file('bad.yaml', cm.replace('\ndata:', '\ndta:\n  x: y\ndata:'))]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr, bad.stderr).to.contain('strict decoding error: unknown field "dta"');
  });

  it('apply --server-side: owns fields, reports a conflict at the field and its manager, keeps managedFields', async () => {
    const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\ndata:\n  color: ${v}\n  size: big\n`;
    expect(await ok(['apply', '--server-side', '-f', file('f1.yaml', cm('red'))])).to.equal('configmap/flags serverside-applied\n');
    const clash = await run(['apply', '--server-side', '--field-manager=other', '-f', file('f2.yaml', cm('blue'))]);
    expect(clash.code).to.equal(1);
    expect(clash.stderr).to.contain('Apply failed with 1 conflict: conflict with "kubectl" using v1: .data.color');
    await ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', file('f2.yaml', cm('blue'))]);
    const stored = JSON.parse(await ok(['get', 'configmap', 'flags', '-o', 'json', '--show-managed-fields']));
    expect(stored.data).to.deep.equal({ color: 'blue', size: 'big' });
    const owners = Object.fromEntries(stored.metadata.managedFields.map((m: any) => [m.manager, m.fieldsV1]));
    expect(owners.other).to.deep.equal({ 'f:data': { 'f:color': {}, 'f:size': {} } });
    expect(owners.kubectl).to.deep.equal({ 'f:data': { 'f:size': {} } });
  });

  it('diff, patch, rollout status, logs, scale and get -w on the broken Deployment', async () => {
    const live = await ok(['get', 'deploy', 'web', '-o', 'yaml']);
    const fixed = file('web.yaml', live.replace('registry.example/shop/web:1.4.20', 'registry.example/shop/web:1.4.2'));
    const diff = await run(['diff', '-f', fixed]);
    expect(diff.code, diff.stderr).to.equal(1);
    expect(diff.stdout).to.match(/^-\s+- image: registry\.example\/shop\/web:1\.4\.20$/m);
    expect(diff.stdout).to.match(/^\+\s+- image: registry\.example\/shop\/web:1\.4\.2$/m);
    const patch = JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'web', image: 'registry.example/shop/web:1.4.2' }] } } } });
    expect(await ok(['patch', 'deployment', 'web', '-p', patch])).to.equal('deployment.apps/web patched\n');
    expect(await ok(['rollout', 'status', 'deployment/web', '--timeout=90s'])).to.contain('deployment "web" successfully rolled out');
    const logs = await run(['logs', 'deployment/web']);
    expect(logs.stdout).to.contain('starting registry.example/shop/web:1.4.2');
    // kubectl's own note when a workload has several pods
    expect(logs.stderr).to.match(/^Found 2 pods, using pod\/web-\w+-\w+\n$/);

    // get -w: the table first, then a row per change as the scale-up runs
    const watch = spawn(kubectl!, ['--kubeconfig', kubeconfig, 'get', 'deployment', 'web', '-w'], { env: { PATH: process.env.PATH ?? '', HOME: dir } });
    let watched = '';
    let watchErr = '';
    watch.stdout.on('data', (d) => (watched += d));
    watch.stderr.on('data', (d) => (watchErr += d));
    try {
      for (let i = 0; i < 100 && !/^web\s/m.test(watched); i++) await new Promise((r) => setTimeout(r, 100));
      expect(await ok(['scale', 'deployment', 'web', '--replicas=3'])).to.equal('deployment.apps/web scaled\n');
      for (let i = 0; i < 300 && !/^web\s+3\/3\s/m.test(watched); i++) await new Promise((r) => setTimeout(r, 100));
    } finally {
      watch.kill();
    }
    const lines = watched.trim().split('\n');
    expect(lines[0]).to.match(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/);
    expect(
      lines.slice(1).every((l) => /^web\s+\d\/\d\s+\d\s+\d\s+\S+$/.test(l)),
      watched,
    ).to.equal(true);
    expect(watched).to.match(/^web\s+3\/3\s+3\s+3\s/m);
    expect(watchErr).to.equal('');
    const scale = JSON.parse(await ok(['get', '--raw', '/apis/apps/v1/namespaces/shop/deployments/web/scale']));
    expect(scale).to.deep.include({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 } });
  });
});

/** The oldest kubectl whose commands the test uses (`kubectl events` is 1.26's). */
const MIN_KUBECTL_MINOR = 26;

/** kubectl's client minor version (Debian bookworm's kubernetes-client is 1.20). */
function kubectlMinor(kubectl: string): number {
  const out = execFileSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8', timeout: 30_000 });
  return Number.parseInt(String((JSON.parse(out) as { clientVersion?: { minor?: string } }).clientVersion?.minor ?? '0'), 10);
}
