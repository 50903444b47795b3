import { expect } from 'chai';
import request from 'supertest';
import { formatStatus } from '../../interfaces/cli/commands/status-command.js';
import { toMcpTool } from '../../interfaces/mcp/mcp-tools.js';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import type { VersionOutput } from '../../domain/tools/outputs/version-output.js';
import { auth, buildTestApp } from '../support/test-app.js';

const version = TOOL_DEFINITIONS.find((d) => d.name === 'version')!;

describe('tool output schemas', () => {
  it('hold the real version answer (every HTTP test app checks every tool answer against its schema)', async () => {
    const { app } = buildTestApp();
    const res = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
    expect(version.outputSchema!.safeParse(res.body.data.result).success).to.equal(true);
  });

  it('catch a handler whose answer drifted from its schema: 500, the drift logged, not echoed', async () => {
    const { app, logger } = buildTestApp({}, { toolHandlers: { version: { execute: async () => ({ status: 'fine', system: {} }) } } });
    const res = await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(500);
    expect(res.body.error.message).to.match(/^Tool version failed unexpectedly; see the server log for request /);
    expect(logger.text()).to.contain('result of version does not match its output schema: status: ');
  });

  it('feed the OpenAPI response schema and MCP outputSchema from the same definition', async () => {
    const { app } = buildTestApp();
    const doc = (await request(app).get('/api/v1/openapi').expect(200)).body;
    const result = doc.paths['/api/v1/tools/version'].post.responses['200'].content['application/json'].schema.properties.data.properties.result;
    expect(result.properties.system.properties.embedding.required).to.include('healthy');
    const mcp = toMcpTool(version);
    expect((mcp.outputSchema as unknown as { properties: { result: unknown } }).properties.result).to.deep.equal(result);
  });

  it('let the CLI read what the server sends: embeddings down when the embedding call failed', () => {
    const status = (healthy: boolean): VersionOutput => ({
      status: 'degraded',
      system: {
        version: { version: '1.0.0', nodeVersion: 'v20', platform: 'linux', arch: 'x64' },
        vectorDB: { connected: true, provider: 'embedded', collections: {} },
        embedding: { provider: 'openai', model: 'text-embedding-3-small', dimension: 1536, kind: 'semantic', healthy },
        aiProvider: { configured: false, provider: 'none', hint: 'set OPENAI_API_KEY' },
        kubernetes: { connected: false, context: '', error: 'no cluster configured' },
        tracing: { enabled: false, exporter: 'none', serviceName: 'svc-mcp', status: 'disabled' },
        sharedState: { configured: false, connected: false, provider: 'none' },
      },
    });
    expect(formatStatus(status(false))).to.match(/embeddings\s+down/);
    expect(formatStatus(status(true))).to.match(/embeddings\s+ok/);
  });
});
