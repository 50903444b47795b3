import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { z } from 'zod';
import type { ToolHandler } from '../../application/tool-handler.js';
import type { ToolDefinition } from '../../domain/tools/tool-definition.js';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { runCli } from '../support/run-cli.js';

/** A tool no part of svc has heard of: only this definition and a use case are added, at the composition root. */
const ECHO_NOTE: ToolDefinition = {
  name: 'echoNote',
  description: 'Repeat a short note back, for checking that a new tool reaches every access method.',
  category: 'Documentation',
  tags: ['docs', 'probe'],
  inputSchema: z.strictObject({
    note: z.string().min(1).max(100).describe('The note to repeat (1 to 100 characters)'),
    times: z.number().int().min(1).max(3).optional().describe('How many times (1 to 3, default 1)'),
  }),
  outputSchema: z.object({ text: z.string().describe('The note, repeated') }),
};

class EchoNote implements ToolHandler {
  readonly calls: Record<string, unknown>[] = [];
  async execute(input: Record<string, unknown>) {
    this.calls.push(input);
    return {
      text: Array<unknown>(Number(input.times ?? 1))
        .fill(input.note)
        .join(' '),
    };
  }
}

describe('one tool definition feeds REST, OpenAPI, MCP and the CLI', function () {
  this.timeout(60_000);
  let server: AccessServer;
  const handler = new EchoNote();
  const headers = { Authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' };

  before(async () => {
    server = await startAccessServer({ overrides: { toolDefinitions: [...TOOL_DEFINITIONS, ECHO_NOTE], toolHandlers: { echoNote: handler } } });
  });

  after(async () => {
    await server.stop();
  });

  it('appears in all four with the same name, description and schema, and runs through each', async () => {
    // REST catalog and execution
    const catalog = (await (await fetch(`${server.url}/api/v1/tools?category=Documentation`, { headers })).json()) as {
      data: { tools: { name: string; description: string; inputSchema: Record<string, unknown> }[] };
    };
    const entry = catalog.data.tools.find((t) => t.name === 'echoNote')!;
    expect(entry.description).to.equal(ECHO_NOTE.description);
    expect(entry.inputSchema).to.deep.include({ required: ['note'] });
    const rest = await fetch(`${server.url}/api/v1/tools/echoNote`, { method: 'POST', headers, body: JSON.stringify({ note: 'hi', times: 2 }) });
    expect(((await rest.json()) as { data: { result: unknown } }).data.result).to.deep.equal({ text: 'hi hi' });

    // OpenAPI
    const doc = (await (await fetch(`${server.url}/api/v1/openapi`)).json()) as {
      paths: Record<string, { post?: { description?: string } }>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.paths['/api/v1/tools/echoNote']?.post?.description).to.include(ECHO_NOTE.description);
    expect(Object.values(doc.components.schemas)).to.deep.include(entry.inputSchema);

    // MCP
    const client = new Client({ name: 'svc-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }),
    );
    try {
      const mcpTool = (await client.listTools()).tools.find((t) => t.name === 'echoNote')!;
      expect({ description: mcpTool.description, inputSchema: mcpTool.inputSchema }).to.deep.equal({
        description: entry.description,
        inputSchema: entry.inputSchema,
      });
      const called = await client.callTool({ name: 'echoNote', arguments: { note: 'mcp' } });
      expect((called.structuredContent as { result: unknown }).result).to.deep.equal({ text: 'mcp' });
      const refused = await client.callTool({ name: 'echoNote', arguments: { note: '' } });
      expect(refused.isError).to.equal(true);
    } finally {
      await client.close();
    }

    // CLI: the binary was built without this tool; it learns it from the server's catalog.
    const env = { SVC_URL: server.url, SVC_AUTH_TOKEN: TEST_TOKEN };
    const listed = await runCli(['tools', '--tag', 'probe'], env);
    expect(listed.stdout).to.match(/^echoNote\s+Documentation\s+docs,probe\s+Repeat a short note/m);
    const ran = await runCli(['run', 'echoNote', '--note', 'cli', '--times', '3', '-o', 'json'], env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect((JSON.parse(ran.stdout) as { result: unknown }).result).to.deep.equal({ text: 'cli cli cli' });

    // The CLI validates it before sending, against the schema the server publishes.
    const callsBefore = handler.calls.length;
    const invalid = await runCli(['run', 'echoNote', '--note', 'x', '--times', '4'], env);
    expect(invalid.code).to.equal(2);
    expect(invalid.stderr).to.match(/Invalid parameters for tool echoNote: .*times/);
    const unknownParam = await runCli(['run', 'echoNote', '--note', 'x', '--loud'], env);
    expect(unknownParam.code).to.equal(2);
    expect(unknownParam.stderr).to.include('Unknown parameter --loud for tool echoNote; its parameters are: --note, --times');
    expect(handler.calls.length, 'nothing invalid reached the server').to.equal(callsBefore);
  });
});
