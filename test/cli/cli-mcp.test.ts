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
});
