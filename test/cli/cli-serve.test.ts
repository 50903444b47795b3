import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { TEST_TOKEN } from '../support/access-server.js';
import { CLI_PATH, runCli } from '../support/run-cli.js';

async function waitFor(predicate: () => boolean, what: string) {
  for (let i = 0; i < 400 && !predicate(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!predicate()) throw new Error(`timed out waiting for ${what}`);
}

describe('svc serve', function () {
  this.timeout(30_000);

  it('starts the server from the environment (REST, MCP and the CLI against it), and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI_PATH, 'serve'], {
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', SVC_AUTH_TOKEN: TEST_TOKEN, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => /svc listening/.test(out), 'svc listening');
      const url = /"url":"([^"]+)"/.exec(out)![1];
      expect(await (await fetch(`${url}/healthz`)).json()).to.deep.equal({ status: 'ok' });
      const tools = await runCli(['tools', '-o', 'json'], { SVC_URL: url, SVC_AUTH_TOKEN: TEST_TOKEN });
      expect(tools.code, tools.stderr).to.equal(0);
      expect(JSON.parse(tools.stdout)).to.have.length(9);
      const mcp = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TEST_TOKEN}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(((await mcp.json()) as { result: { tools: unknown[] } }).result.tools).to.have.length(9);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).to.equal(0);
    expect(out).to.include('svc stopped');
  });

  it('stops with exit 2 and names the variable on a bad configuration, like the start command', async () => {
    const run = await runCli(['serve'], { PORT: 'abc' });
    expect(run.code).to.equal(2);
    expect(run.stderr).to.include('PORT must be a whole number');
  });
});
