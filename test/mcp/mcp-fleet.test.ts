import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { mcpClient } from '../support/mcp-client.js';
import { startFleet, type FleetFixture } from '../support/fleet-fixture.js';
import { startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { planJson, scaleWeb } from '../support/operate-fixtures.js';

const WEB = '/apis/apps/v1/namespaces/x/deployments/web';
type Called = { isError?: boolean; structuredContent?: unknown; content: unknown };
const textOf = (r: Called) => (r.content as { text: string }[])[0].text;

describe('MCP: a fleet of clusters (SVC_CLUSTERS)', () => {
  let chat: ModelStandIn;
  let fleet: FleetFixture;
  let server: AccessServer;
  let client: Client;

  before(async () => {
    chat = await startModelStandIn('openai');
    fleet = await startFleet(['staging', 'production'], 'clusters:\n  production:\n    readOnly: true\n');
    server = await startAccessServer({ env: { ...chat.env(), ...fleet.env } });
    client = await mcpClient(server.url, TEST_TOKEN);
  });
  after(async () => {
    await client.close();
    await server.stop();
    await fleet.close();
    await chat.close();
  });

  it('every tool schema offers cluster; a call without it is an error naming the choices', async () => {
    const { tools } = await client.listTools();
    for (const t of tools) expect(t.inputSchema.properties, t.name).to.have.property('cluster');
    const refused = (await client.callTool({ name: 'operate', arguments: { intent: 'scale web in x to 4' } })) as Called;
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.contain('svc serves 2 clusters (staging, production)');
    expect(fleet.clusters.staging.requests).to.deep.equal([]);
    expect(fleet.clusters.production.requests).to.deep.equal([]);
  });

  it('operate on staging reaches staging only; the read-only production refuses execution before any write', async () => {
    chat.script({ content: 'ok' }, { content: planJson([scaleWeb(4)]) });
    const start = (await client.callTool({ name: 'operate', arguments: { intent: 'scale web in x to 4', cluster: 'staging' } })) as Called;
    expect(start.isError, textOf(start)).to.not.equal(true);
    const sessionId = (start.structuredContent as { result: { sessionId: string } }).result.sessionId;
    const done = (await client.callTool({ name: 'operate', arguments: { sessionId, executeChoice: 1, cluster: 'staging' } })) as Called;
    expect((done.structuredContent as { result: { status: string } }).result.status).to.equal('executed');
    expect(fleet.clusters.staging.objects.get(WEB)!.spec.replicas).to.equal(4);
    expect(fleet.clusters.production.requests).to.deep.equal([]);

    chat.script({ content: 'ok' }, { content: planJson([scaleWeb(4)]) });
    const prod = (await client.callTool({ name: 'operate', arguments: { intent: 'scale web in x to 4', cluster: 'production' } })) as Called;
    const prodSession = (prod.structuredContent as { result: { sessionId: string } }).result.sessionId;
    const refused = (await client.callTool({ name: 'operate', arguments: { sessionId: prodSession, executeChoice: 1, cluster: 'production' } })) as Called;
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.contain('cluster production is read-only');
    expect(fleet.writes('production')).to.deep.equal([]);
    expect(fleet.clusters.production.objects.get(WEB)!.spec.replicas).to.equal(2);
  });
});
