import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { CLI_PATH } from '../support/run-cli.js';

/** The built CLI's `svc mcp`, launched as an agent launches an MCP server: the official client's stdio transport. */
async function connect(args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  // anything on stdout that is not an MCP message surfaces here
  const transportErrors: Error[] = [];
  const client = new Client({ name: 'svc-mcp-test', version: '1.0.0' });
  client.onerror = (e) => transportErrors.push(e);
  await client.connect(transport);
  return { client, transportErrors, stderr: () => stderr };
}

describe('svc mcp: MCP on stdin/stdout, forwarded to a running svc', function () {
  this.timeout(60_000);
  let server: AccessServer;
  before(async () => {
    server = await startAccessServer();
  });
  after(async () => server.stop());

  it('lists and calls tools, lists and renders prompts; stdout carries MCP messages only, logs go to stderr', async () => {
    const { client, transportErrors, stderr } = await connect(['--url', server.url], { SVC_AUTH_TOKEN: TEST_TOKEN });
    try {
      expect(client.getServerVersion()?.name).to.equal('svc');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).to.include.members(['version', 'remediate', 'operate', 'recommend']);
      expect(tools.find((t) => t.name === 'version')?.outputSchema).to.be.an('object');

      const version = await client.callTool({ name: 'version', arguments: {} });
      expect(version.isError).to.not.equal(true);
      expect((version.structuredContent as { result: { system: { version: { version: string } } } }).result.system.version.version).to.be.a('string');

      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).to.include('debug-crashloop');
      const rendered = await client.getPrompt({ name: 'debug-crashloop', arguments: { pod: 'api-1', namespace: 'shop' } });
      expect((rendered.messages[0].content as { text: string }).text).to.include('Pod `api-1` in namespace `shop`');

      // a tool error comes back as svc answers it, through the bridge
      const bad = await client.callTool({ name: 'remediate', arguments: {} });
      expect(bad.isError).to.equal(true);
      expect(transportErrors).to.deep.equal([]);
      expect(stderr()).to.contain(`svc mcp: forwarding MCP on stdin/stdout to ${server.url}/mcp`);
    } finally {
      await client.close();
    }
  });

  it('answers a JSON-RPC error naming SVC_AUTH_TOKEN when the token is missing or wrong', async () => {
    for (const env of [{}, { SVC_AUTH_TOKEN: 'wrong-token-0123456789abcdef0123' }] as Record<string, string>[]) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI_PATH, 'mcp', '--url', server.url],
        env: { PATH: process.env.PATH ?? '', ...env },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'svc-mcp-test', version: '1.0.0' });
      const failed = await client.connect(transport).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(failed?.message).to.match(
        /svc at http:\/\/127\.0\.0\.1:\d+\/mcp refused the request \(HTTP 401: (Missing|Invalid) bearer token.*\); set SVC_AUTH_TOKEN or pass --token/,
      );
      await client.close();
    }
  });

  it('answers a JSON-RPC error naming the URL when no svc listens there', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_PATH, 'mcp', '--url', 'http://127.0.0.1:9'],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'svc-mcp-test', version: '1.0.0' });
    const failed = await client.connect(transport).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(failed?.message).to.contain('svc at http://127.0.0.1:9/mcp could not be reached');
    await client.close();
  });

  it('input that ends right after a request still gets its answer: the bridge exits only once every request read is answered', async () => {
    const child = spawn(process.execPath, [CLI_PATH, 'mcp', '--url', server.url], {
      env: { PATH: process.env.PATH ?? '', SVC_AUTH_TOKEN: TEST_TOKEN },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'version', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'no-such-tool', arguments: {} } },
    ];
    // all at once, then end of input: `echo ... | svc mcp` as a script does it
    child.stdin.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    expect(await exited).to.equal(0);
    const answers = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: number; result?: { structuredContent?: { tool?: string } }; error?: { code: number; message: string } });
    expect(answers.map((a) => a.id).sort()).to.deep.equal([1, 2, 3]);
    expect(answers.find((a) => a.id === 2)?.result?.structuredContent?.tool).to.equal('version');
    const unknown = answers.find((a) => a.id === 3)?.error;
    expect(unknown?.code).to.equal(-32602);
    // the wire message is the text alone: a client that prefixes `MCP error -32602: ` does it once
    expect(unknown?.message).to.not.match(/MCP error/);
    expect(unknown?.message).to.contain('no-such-tool');
  });

  it('an error reaches the agent once: the SDK client shows one `MCP error -32602:` prefix, and a failure is one stderr line', async () => {
    const { client } = await connect(['--url', server.url], { SVC_AUTH_TOKEN: TEST_TOKEN });
    try {
      const failed = await client.callTool({ name: 'no-such-tool', arguments: {} }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(failed?.message).to.match(/^MCP error -32602: /);
      expect(failed?.message).to.not.match(/MCP error -32602: MCP error/);
    } finally {
      await client.close();
    }
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_PATH, 'mcp', '--url', 'http://127.0.0.1:9'],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const lone = new Client({ name: 'svc-mcp-test', version: '1.0.0' });
    await lone.connect(transport).catch(() => undefined);
    await lone.close();
    const lines = stderr.split('\n').filter((l) => l.includes('could not be reached'));
    expect(lines).to.have.length(1);
  });
});
