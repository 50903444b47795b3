import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { runCli } from '../support/run-cli.js';

describe('svc prompts list and get', function () {
  this.timeout(60_000);
  let server: AccessServer;
  let env: Record<string, string>;
  let workDir: string;

  before(async () => {
    server = await startAccessServer();
    env = { SVC_URL: server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
    workDir = mkdtempSync(path.join(tmpdir(), 'svc-cli-prompts-'));
  });

  after(async () => {
    await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('lists the library with each prompt’s arguments (optional ones in brackets)', async () => {
    const run = await runCli(['prompts', 'list'], env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^\d+ prompt\(s\) from built-in$/m);
    expect(run.stdout).to.match(/^debug-crashloop\s+pod namespace \[container\]\s+Find out why a pod/m);

    const json = await runCli(['prompts', 'list', '-o', 'json'], env);
    const data = JSON.parse(json.stdout) as { source: string; prompts: { name: string }[] };
    expect(data.source).to.equal('built-in');
    expect(data.prompts.map((p) => p.name)).to.include.members(['debug-crashloop', 'incident-triage']);
  });

  it('renders a prompt with --arg values; a skill lists its files', async () => {
    const run = await runCli(['prompts', 'get', 'debug-crashloop', '--arg', 'pod=api-1', '--arg', 'namespace=shop=prod'], env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include('Pod `api-1` in namespace `shop=prod`');

    const skill = await runCli(['prompts', 'get', 'incident-triage', '--arg', 'namespace=shop', '--arg', 'symptom=502s'], env);
    expect(skill.code, skill.stderr).to.equal(0);
    expect(skill.stdout).to.match(/--- 2 file\(s\) in this skill:/);
    expect(skill.stdout).to.match(/^0755\s+\d+ B\s+scripts\/collect-diagnostics\.sh$/m);

    const json = await runCli(['prompts', 'get', 'debug-crashloop', '--arg', 'pod=a', '--arg', 'namespace=b', '-o', 'json'], env);
    const data = JSON.parse(json.stdout) as { source: string; messages: { role: string; content: { text: string } }[] };
    expect(data.source).to.equal('built-in');
    expect(data.messages[0].role).to.equal('user');
  });

  it('exits 1 with the server’s message for a missing required argument or an unknown prompt', async () => {
    const missing = await runCli(['prompts', 'get', 'debug-crashloop', '--arg', 'pod=a'], env);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include('svc: VALIDATION_ERROR: Missing required argument: namespace');
    const unknown = await runCli(['prompts', 'get', 'nope'], env);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('svc: PROMPT_NOT_FOUND: Prompt not found: nope');
  });

  it('lists and renders an uploaded skill folder with --source', async () => {
    const dir = path.join(workDir, 'skill');
    mkdirSync(path.join(dir, 'bin'), { recursive: true });
    writeFileSync(
      path.join(dir, 'SKILL.md'),
      '---\nname: local-deploy\ndescription: Deploy from my laptop\narguments:\n  - name: app\n    description: the app\n    required: true\n---\nDeploy {{app}} with bin/run.sh\n',
    );
    writeFileSync(path.join(dir, 'bin', 'run.sh'), '#!/bin/sh\necho run\n', { mode: 0o755 });
    const upload = await runCli(['prompts', 'upload', dir, '--source', 'local:ci-laptop'], env);
    expect(upload.code, upload.stderr).to.equal(0);

    const list = await runCli(['prompts', 'list', '--source', 'local:ci-laptop'], env);
    expect(list.code, list.stderr).to.equal(0);
    expect(list.stdout).to.match(/^1 prompt\(s\) from local:ci-laptop$/m);
    const get = await runCli(['prompts', 'get', 'local-deploy', '--source', 'local:ci-laptop', '--arg', 'app=shop'], env);
    expect(get.code, get.stderr).to.equal(0);
    expect(get.stdout).to.include('Deploy shop with bin/run.sh');
    expect(get.stdout).to.match(/^0755\s+19 B\s+bin\/run\.sh$/m);

    const notCached = await runCli(['prompts', 'get', 'local-deploy', '--source', 'local:ci-never-uploaded'], env);
    expect(notCached.code).to.equal(1);
    expect(notCached.stderr).to.include('Ingested source not found: local:ci-never-uploaded');
  });
});
