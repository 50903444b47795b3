import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClusterClient } from '../../infrastructure/kubernetes/create-cluster-client.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { scenarioNames, defaultScenariosDir } from '../../lab/evaluation/scenario-loader.js';
import { CLI_PATH, runCli, startCli } from '../support/run-cli.js';

describe('svc sandbox and svc eval', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-sandbox-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('--list prints one line per scenario: the name, then its tags', async () => {
    const r = await runCli(['sandbox', '--list'], {});
    expect(r.code, r.stderr).to.equal(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).to.deep.equal(scenarioNames(defaultScenariosDir()));
    expect(lines.find((l) => l.startsWith('web-image-tag-typo'))).to.match(/^web-image-tag-typo\s+easy image rollout$/);
  });

  it('--list into a reader that has closed the pipe (svc sandbox --list | head -1) ends quietly, exit 0', async () => {
    const child = spawn(process.execPath, [CLI_PATH, 'sandbox', '--list'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    // like a reader that has had what it wanted: the pipe is closed before svc writes its first line
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(err).to.not.contain('EPIPE');
    expect(code).to.equal(0);
  });

  it('serves a scenario: writes the kubeconfig (0600), prints one ready line, answers the real client, stops on SIGTERM', async () => {
    const kubeconfig = path.join(dir, 'kc.yaml');
    const { child, output, exited } = startCli(['sandbox', '--scenario', 'web-image-tag-typo', '--kubeconfig', kubeconfig]);
    try {
      for (let i = 0; i < 600 && !/^ready /m.test(output()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(output()).to.match(/^ready https:\/\/127\.0\.0\.1:\d+ scenario web-image-tag-typo kubeconfig /m);
      expect(statSync(kubeconfig).mode & 0o777).to.equal(0o600);
      expect(readFileSync(kubeconfig, 'utf8')).to.contain('certificate-authority-data');
      const client = createClusterClient(loadConfig({ KUBECONFIG: kubeconfig, SVC_DATA_DIR: dir }).cluster);
      const pods = await client.list({ apiVersion: 'v1', kind: 'Pod', namespace: 'shop' });
      expect(pods.items.map((p) => (p.status as any).containerStatuses[0].state.waiting.reason)).to.deep.equal(['ImagePullBackOff', 'ImagePullBackOff']);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).to.equal(0);
    expect(
      output()
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('ready')),
    ).to.have.length(1);
  });

  it('refuses bad usage before anything runs: no scenario, an unknown one, --record with --replay, a bad --min-pass', async () => {
    const none = await runCli(['sandbox'], {});
    expect([none.code, none.stderr]).to.deep.equal([2, 'svc: give --scenario NAME and --kubeconfig FILE (or --try), or --list\n']);
    const unknown = await runCli(['sandbox', '--scenario', 'nope', '--kubeconfig', path.join(dir, 'k')], {});
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.contain('no scenario named nope');
    const both = await runCli(['eval', '--replay', '--record'], {});
    expect([both.code, both.stderr]).to.deep.equal([2, 'svc: --record records a live model: it cannot go with --replay\n']);
    const force = await runCli(['eval', '--replay', '--force'], {});
    expect([force.code, force.stderr]).to.deep.equal([2, 'svc: --force goes with --record (keep the transcript of a failed case)\n']);
    const rate = await runCli(['eval', '--replay', '--min-pass', '1.5'], {});
    expect(rate.code).to.equal(2);
    const model = await runCli(['eval', '--scenario', 'web-image-tag-typo'], { PATH: process.env.PATH ?? '' });
    expect(model.code).to.equal(2);
    expect(model.stderr).to.contain('svc eval needs a model');
  });

  it('eval --baselines: the five baselines beside the scorecard, none passing the scenario', async () => {
    const r = await runCli(['eval', '--replay', '--baselines', '--scenario', 'web-image-tag-typo'], {});
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.contain('Baselines (built-in non-models, run live through the scripted-model path) beside the model:');
    for (const b of ['do-nothing', 'always-restart', 'more-memory', 'every-cause', 'parrot-issue'])
      expect(r.stdout).to.match(new RegExp(`^baseline:${b}\\s+1\\s+0%`, 'm'));
    expect(r.stdout).to.not.contain('FLAG');
  });

  it('eval --replay: the scorecard labelled replay, reports, exit 1 below --min-pass', async () => {
    const json = path.join(dir, 'r.json');
    const md = path.join(dir, 'r.md');
    const r = await runCli(
      ['eval', '--replay', '--scenario', 'web-image-tag-typo', 'web-scale-for-sale', '--repeat', '2', '--report-json', json, '--report-md', md],
      {},
    );
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.contain('Replay run (recorded answers: this scores svc');
    expect(r.stdout).to.match(/^overall\s+2\s+100%\s+100%/m);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.run).to.include({ kind: 'replay', repeat: 2 });
    expect(report.run.transcripts).to.deep.equal({ 'web-image-tag-typo': 'hand-written', 'web-scale-for-sale': 'hand-written' });
    expect(r.stdout).to.contain('transcripts: 2 hand-written');
    expect(report.cases.map((c: any) => [c.scenario, c.repeat, c.score.passed])).to.deep.equal([
      ['web-image-tag-typo', 1, true],
      ['web-image-tag-typo', 2, true],
      ['web-scale-for-sale', 1, true],
      ['web-scale-for-sale', 2, true],
    ]);
    expect(readFileSync(md, 'utf8')).to.contain('# svc eval: Replay run');
    // a scenario whose transcript runs out fails; below --min-pass the exit code is 1
    const copy = path.join(dir, 'scenarios');
    cpSync(path.join(defaultScenariosDir(), 'web-image-tag-typo'), path.join(copy, 'web-image-tag-typo'), { recursive: true });
    const transcript = path.join(copy, 'web-image-tag-typo', 'transcript.yaml');
    writeFileSync(transcript, readFileSync(transcript, 'utf8').split('\n  - content:')[0]);
    const gated = await runCli(['eval', '--replay', '--min-pass', '0.5', '--scenario-dir', copy], {});
    expect(gated.code, gated.stderr).to.equal(1);
    expect(gated.stdout).to.match(/^FAIL web-image-tag-typo #1: .*fix: the tool failed: transcript exhausted/m);
    expect(gated.stderr).to.equal('svc: BELOW_MIN_PASS: pass@1 0.00 is below --min-pass 0.5\n');
  });
});
