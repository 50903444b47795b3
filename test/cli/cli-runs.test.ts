import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer, type ChatReply } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { CLI_PATH, runCli } from '../support/run-cli.js';
import { buildTestApp, TEST_DATA_DIR, TEST_TOKEN } from '../support/test-app.js';
import { appParts } from '../../infrastructure/composition-root.js';

const getWeb: ChatReply = {
  toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
};

/** The CLI in a pseudo-terminal (util-linux `script`), its output as the terminal shows it, Ctrl-C typed into it. */
function inTerminal(args: string[], env: Record<string, string>) {
  const command = [process.execPath, CLI_PATH, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', TERM: 'xterm', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (screen += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    screen: () => screen,
    type: (text: string) => child.stdin.write(text),
    exited,
    async until(text: string | RegExp, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      while (!(typeof text === 'string' ? screen.includes(text) : text.test(screen))) {
        if (Date.now() > end) throw new Error(`not on the terminal within ${timeoutMs} ms: ${String(text)}\n--- screen ---\n${screen}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

describe('svc CLI: AI tools as runs, live progress, Ctrl-C cancels, svc runs', function () {
  // each test starts the CLI several times: a second or more each on a busy machine
  this.timeout(240_000);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let server: RunningServer;
  let env: Record<string, string>;

  before(async () => {
    [kube, chat] = await Promise.all([KubeApiServer.start(), OpenAiChatServer.start()]);
    kube.create(webManifest(2));
    kube.settle();
    const t = buildTestApp({
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
      SVC_RUNS_HEARTBEAT_MS: '100',
      SVC_DATA_DIR: mkdtempSync(path.join(TEST_DATA_DIR, 'cli-runs-')),
    });
    server = await startServer(appParts(t.container));
    env = { SVC_URL: server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
  });
  after(async () => {
    await server.close();
    await Promise.all([kube.close(), chat.close()]);
  });

  it('on a terminal: a spinner with the latest event; Ctrl-C cancels the run on the server and says so', async () => {
    chat.script({ ...getWeb, delayMs: 300 }, { hang: true });
    const term = inTerminal(['run', 'operate', '--intent', 'scale web in namespace x to 5 replicas'], env);
    await term.until(/[|/\\-] run_[0-9a-f]{32}: function-call get_resource/);
    await term.until(/run_[0-9a-f]{32}: model-call \(/);
    // cancel while the model call hangs: once the hanging answer has been taken from the script, so none is left over for the next test
    while (chat.requests.length < 2) await new Promise((r) => setTimeout(r, 20));
    term.type('\x03');
    expect(await term.exited, term.screen()).to.equal(130);
    const runId = /(run_[0-9a-f]{32})/.exec(term.screen())![1];
    expect(term.screen()).to.include(`Interrupted: run ${runId} was cancelled on the server`);
    const shown = await runCli(['runs', 'show', runId, '-o', 'json'], env);
    expect(JSON.parse(shown.stdout)).to.deep.include({ runId, status: 'cancelled' });
  });

  it('without a terminal: a plain line per event on stderr, the result on stdout; svc runs list, show, watch, cancel', async () => {
    chat.script(getWeb, { content: 'scale it to 5.' }, { content: planJson([scaleWeb(5)]) });
    const run = await runCli(['run', 'operate', '--intent', 'scale web in namespace x to 5 replicas'], env);
    expect(run.code, run.stderr).to.equal(0);
    const lines = run.stderr.trim().split('\n');
    const runId = /^(run_[0-9a-f]{32}): /.exec(lines[0])![1];
    expect(lines.map((l) => l.slice(runId.length + 2))).to.deep.equal([
      'model-call',
      'function-call get_resource',
      'model-call',
      'model-call',
      'dry-run patch Deployment x/web: accepted',
      'done: succeeded',
    ]);
    expect(run.stdout).to.include('status: awaiting_approval');
    expect(run.stdout).not.to.include('\x1b');

    const list = await runCli(['runs', 'list', '--tool', 'operate', '--status', 'succeeded'], env);
    expect(list.stdout.split('\n')[0]).to.match(/^RUN\s+TOOL\s+STATUS\s+CREATED\s+CALLER$/);
    expect(list.stdout).to.include(`${runId}  operate  succeeded`);
    const show = await runCli(['runs', 'show', runId], env);
    expect(show.stdout).to.include('status: succeeded').and.include('function-call get_resource');
    const watch = await runCli(['runs', 'watch', runId], env);
    expect(watch.stdout.trim()).to.equal(`${runId}: succeeded`);
    const cancel = await runCli(['runs', 'cancel', runId], env);
    expect(cancel.code).to.equal(1);
    expect(cancel.stderr).to.include('has already ended (succeeded)');
  });

  it('svc sessions list and show: the session a run made, its status and the next step the tool answered', async () => {
    chat.script(getWeb, { content: 'scale it to 3.' }, { content: planJson([scaleWeb(3)]) });
    const run = await runCli(['run', 'operate', '--intent', 'scale web in namespace x to 3 replicas', '-o', 'json'], env);
    expect(run.code, run.stderr).to.equal(0);
    const answer = JSON.parse(run.stdout).result;
    const list = await runCli(['sessions', 'list', '--tool', 'operate', '--limit', '1'], env);
    expect(list.code, list.stderr).to.equal(0);
    const [head, row] = list.stdout.split('\n');
    expect(head).to.match(/^SESSION\s+TOOL\s+STATUS\s+UPDATED\s+OWNER\s+SUBJECT$/);
    expect(row).to.match(new RegExp(`^${answer.sessionId}  operate  awaiting_approval  \\S+  admin\\s+scale web in namespace x to 3 replicas$`));
    const json = JSON.parse((await runCli(['sessions', 'list', '--tool', 'operate', '-o', 'json'], env)).stdout);
    expect(json.sessions[0]).to.deep.include({ sessionId: answer.sessionId, status: answer.status, nextStep: answer.nextStep });
    const show = await runCli(['sessions', 'show', answer.sessionId], env);
    expect(show.stdout).to.include(`sessionId: ${answer.sessionId}`).and.include(`Next: ${answer.nextStep}`);
    const bad = await runCli(['sessions', 'list', '--status', 'finished'], env);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('status must be one of');
    const unknown = await runCli(['sessions', 'show', `opr_${'0'.repeat(32)}`], env);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('it is unknown or expired');
  });
});
