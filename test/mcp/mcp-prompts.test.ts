import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { mcpClient } from '../support/mcp-client.js';

const connect = (server: AccessServer): Promise<Client> => mcpClient(server.url, TEST_TOKEN);

async function mcpError(act: Promise<unknown>): Promise<McpError> {
  try {
    await act;
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error('expected an MCP error');
}

describe('MCP over Streamable HTTP: prompts', () => {
  let server: AccessServer;
  let client: Client;

  before(async () => {
    server = await startAccessServer();
    client = await connect(server);
  });

  after(async () => {
    await client.close();
    await server.stop();
  });

  it('advertises the prompts capability', () => {
    expect(client.getServerCapabilities()?.prompts).to.deep.equal({ listChanged: false });
  });

  it('prompts/list gives the library REST lists, with each prompt’s declared arguments', async () => {
    const { prompts } = await client.listPrompts();
    const res = await fetch(`${server.url}/api/v1/prompts`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
    const rest = ((await res.json()) as { data: { prompts: { name: string; description: string; arguments?: unknown[] }[]; source: string } }).data;

    expect(rest.source).to.equal('built-in');
    expect(prompts.length).to.be.at.least(6);
    expect(prompts).to.deep.equal(rest.prompts);
    const crashloop = prompts.find((p) => p.name === 'debug-crashloop')!;
    expect(crashloop.arguments?.map((a) => [a.name, a.required])).to.deep.equal([
      ['pod', true],
      ['namespace', true],
      ['container', false],
    ]);
  });

  it('prompts/get renders a prompt with its arguments substituted, as REST does', async () => {
    const args = { pod: 'api-7d9f', namespace: 'shop' };
    const result = await client.getPrompt({ name: 'debug-crashloop', arguments: args });
    const res = await fetch(`${server.url}/api/v1/prompts/debug-crashloop`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: args }),
    });
    const rest = ((await res.json()) as { data: { description: string; messages: unknown[] } }).data;

    expect(result.description).to.equal(rest.description);
    expect(result.messages).to.deep.equal(rest.messages);
    const text = (result.messages[0].content as { type: string; text: string }).text;
    expect(text).to.include('Pod `api-7d9f` in namespace `shop`');
    expect(text).to.not.include('{{');
  });

  it('prompts/get of a skill carries its other files as embedded resources', async () => {
    const result = await client.getPrompt({ name: 'incident-triage', arguments: { namespace: 'shop', symptom: '502s' } });
    expect((result.messages[0].content as { text: string }).text).to.include('namespace `shop`');
    const resources = result.messages.slice(1).map((m) => m.content as { type: string; resource: { uri: string; text?: string } });
    expect(resources.map((r) => r.type)).to.deep.equal(['resource', 'resource']);
    expect(resources.map((r) => r.resource.uri).sort()).to.deep.equal([
      'svc-prompt://incident-triage/checklist.md',
      'svc-prompt://incident-triage/scripts/collect-diagnostics.sh',
    ]);
    expect(resources.every((r) => typeof r.resource.text === 'string' && r.resource.text.length > 0)).to.equal(true);
  });

  it('a missing required argument and an unknown prompt are InvalidParams errors naming them', async () => {
    const missing = await mcpError(client.getPrompt({ name: 'debug-crashloop', arguments: { pod: 'api' } }));
    expect(missing.code).to.equal(ErrorCode.InvalidParams);
    expect(missing.message).to.include('VALIDATION_ERROR: Missing required argument: namespace');

    const unknown = await mcpError(client.getPrompt({ name: 'no-such-prompt' }));
    expect(unknown.code).to.equal(ErrorCode.InvalidParams);
    expect(unknown.message).to.include('PROMPT_NOT_FOUND: Prompt not found: no-such-prompt');

    expect((await client.listPrompts()).prompts.length, 'the server keeps serving').to.be.at.least(6);
  });
});

describe('MCP over Streamable HTTP: prompts from an unreachable configured repository', () => {
  let server: AccessServer;

  before(async () => {
    // Port 9 (discard) refuses connections on loopback: the clone fails at once.
    server = await startAccessServer({ env: { SVC_USER_PROMPTS_REPO: 'http://127.0.0.1:9/prompts.git' } });
  });

  after(async () => {
    await server.stop();
  });

  it('is an InternalError with the same safe PROMPTS_SOURCE_ERROR message as REST’s 502', async () => {
    const client = await connect(server);
    const err = await mcpError(client.listPrompts());
    await client.close();
    const res = await fetch(`${server.url}/api/v1/prompts`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
    const rest = (await res.json()) as { error: { code: string; message: string } };

    expect(res.status).to.equal(502);
    expect(err.code).to.equal(ErrorCode.InternalError);
    expect(err.message).to.include(`PROMPTS_SOURCE_ERROR: ${rest.error.message}`);
  });
});
