import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import http from 'node:http';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { mcpClient } from '../support/mcp-client.js';

const connect = (server: AccessServer, token: string | null = TEST_TOKEN): Promise<Client> => mcpClient(server.url, token ?? undefined);

describe('MCP over Streamable HTTP: tools', () => {
  let server: AccessServer;
  let client: Client;
  const tracer = new RecordingTracer();

  before(async () => {
    server = await startAccessServer({ overrides: { tracer } });
    client = await connect(server);
  });

  after(async () => {
    await client.close();
    await server.stop();
  });

  it('tools/list gives the nine tools with the catalog names, descriptions and input JSON Schemas', async () => {
    const { tools } = await client.listTools();
    const res = await fetch(`${server.url}/api/v1/tools`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
    const catalog = ((await res.json()) as { data: { tools: { name: string; description: string; inputSchema: unknown }[] } }).data.tools;

    expect(tools.map((t) => t.name)).to.deep.equal(TOOL_DEFINITIONS.map((d) => d.name));
    expect(tools).to.have.length(9);
    expect(tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))).to.deep.equal(
      catalog.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    );
    const recommend = tools.find((t) => t.name === 'recommend')!;
    expect(recommend.inputSchema.required).to.deep.equal(['intent']);
    expect(recommend._meta).to.deep.equal({ 'svc/category': 'AI Tools', 'svc/tags': ['ai', 'deployment', 'recommendation'] });
  });

  it('tools/call version runs the same use case as REST, inside an execute_tool span', async () => {
    tracer.spans.length = 0;
    const result = await client.callTool({ name: 'version', arguments: {} });

    expect(result.isError).to.not.equal(true);
    const data = result.structuredContent as { tool: string; executionTime: number; result: { status: string; system: { version: { version: string } } } };
    expect(data.tool).to.equal('version');
    expect(data.executionTime).to.be.a('number');
    expect(data.result.system.version.version).to.match(/^\d+\.\d+\.\d+/);
    expect(JSON.parse((result.content as { type: string; text: string }[])[0].text)).to.deep.equal(data);
    expect(tracer.spans.map((s) => s.name).sort()).to.deep.equal([
      'execute_tool version',
      'probe embeddings',
      'probe kubernetes',
      'probe shared-state',
      'probe vectordb',
    ]);
    expect(tracer.spans[0].attributes).to.include({ 'gen_ai.tool.name': 'version', 'gen_ai.tool.input': '{}', 'svc.tool.success': true });
  });

  it('tools/call with bad arguments is an isError result naming each bad field, and the server keeps serving', async () => {
    tracer.spans.length = 0;
    const result = await client.callTool({ name: 'recommend', arguments: { intent: 42, extra: true } });

    expect(result.isError).to.equal(true);
    const error = (result.structuredContent as { error: { code: string; message: string; details: { field: string }[] } }).error;
    expect(error.code).to.equal('VALIDATION_ERROR');
    expect(error.details.map((d) => d.field).sort()).to.deep.equal(['extra', 'intent']);
    expect((result.content as { text: string }[])[0].text).to.match(/^VALIDATION_ERROR: Invalid parameters for tool recommend/);
    expect(tracer.spans, 'validation runs before the span opens, as on REST').to.have.length(0);

    const again = await client.callTool({ name: 'version', arguments: {} });
    expect(again.isError).to.not.equal(true);
  });

  it('tools/call of an evidence of 20001 characters is refused like REST', async () => {
    const result = await client.callTool({ name: 'remediate', arguments: { issue: 'x', evidence: 'e'.repeat(20001) } });
    expect(result.isError).to.equal(true);
    expect((result.structuredContent as { error: { details: { field: string }[] } }).error.details[0].field).to.equal('evidence');
  });

  it('tools/call of an unknown tool is an MCP protocol error', async () => {
    let caught: unknown;
    try {
      await client.callTool({ name: 'noSuchTool', arguments: {} });
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(McpError);
    expect((caught as McpError).code).to.equal(ErrorCode.InvalidParams);
    expect((caught as McpError).message).to.include('Tool not found: noSuchTool');
  });

  it('a tool failure is an isError result with the EXECUTION_ERROR message', async () => {
    // recommend now runs; with no AI provider configured, a concrete intent fails saying what to set
    const result = await client.callTool({ name: 'recommend', arguments: { intent: 'a PostgreSQL database for the orders service' } });
    expect(result.isError).to.equal(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).to.equal('EXECUTION_ERROR');
  });
});

describe('MCP over Streamable HTTP: the HTTP surface', () => {
  let server: AccessServer;
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  before(async () => {
    server = await startAccessServer();
  });

  after(async () => {
    await server.stop();
  });

  it('is bearer-gated like the REST routes: no token and a wrong token are 401 with WWW-Authenticate', async () => {
    for (const auth of [undefined, 'Bearer wrong-token-wrong-token']) {
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...mcpHeaders, ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify(initialize),
      });
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('UNAUTHORIZED');
    }
  });

  it('the SDK client cannot connect without the token', async () => {
    let caught: unknown;
    try {
      await connect(server, null);
    } catch (err) {
      caught = err;
    }
    expect(String(caught)).to.match(/401|Unauthorized/i);
  });

  it('answers initialize statelessly: no session id header', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...mcpHeaders, authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify(initialize),
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('mcp-session-id')).to.equal(null);
    const body = (await res.json()) as { result: { serverInfo: { name: string }; capabilities: { tools: unknown } } };
    expect(body.result.serverInfo.name).to.equal('svc');
    expect(body.result.capabilities.tools).to.deep.equal({ listChanged: false });
  });

  it('GET and DELETE are 405 with Allow: POST (no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${TEST_TOKEN}`, accept: 'text/event-stream' } });
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('POST');
    }
  });

  it('a body that is not application/json is 415, a JSON body that is not JSON-RPC is a JSON-RPC error', async () => {
    const text = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', accept: mcpHeaders.accept, authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify(initialize),
    });
    expect(text.status).to.equal(415);
    const garbage = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...mcpHeaders, authorization: `Bearer ${TEST_TOKEN}` },
      body: JSON.stringify({ hello: 'world' }),
    });
    expect(garbage.status).to.equal(400);
    expect(((await garbage.json()) as { jsonrpc: string; error: { code: number } }).error.code).to.equal(-32700);
  });
});

describe('MCP over Streamable HTTP: open loopback mode', () => {
  let server: AccessServer;

  before(async () => {
    server = await startAccessServer({ env: { SVC_AUTH_TOKEN: undefined } });
  });

  after(async () => {
    await server.stop();
  });

  it('serves without a token on loopback, but refuses a foreign Host header (DNS rebinding)', async () => {
    const client = await connect(server, null);
    expect((await client.listTools()).tools).to.have.length(9);
    await client.close();

    const port = new URL(server.url).port;
    const res = await new Promise<{ status: number }>((resolve, reject) => {
      // fetch does not let a caller set Host; node:http does.
      const req = http.request(
        { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { host: `attacker.example:${port}`, 'content-type': 'application/json' } },
        (r) => {
          r.resume();
          resolve({ status: r.statusCode ?? 0 });
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(res.status).to.equal(403);
  });
});
