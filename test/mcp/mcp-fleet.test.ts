import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { TEST_TOKEN } from '../support/access-server.js';
import { mcpClient } from '../support/mcp-client.js';
import { startFleet } from '../support/fleet-fixture.js';
import { svcOnFleet } from '../support/svc-on-fleet.js';
import { planJson, scaleWeb } from '../support/operate-fixtures.js';

const WEB = '/apis/apps/v1/namespaces/x/deployments/web';
type Called = { isError?: boolean; structuredContent?: unknown; content: unknown };
const textOf = (r: Called) => (r.content as { text: string }[])[0].text;

describe('MCP: a fleet of clusters (SVC_CLUSTERS)', () => {
  const svc = svcOnFleet(() => startFleet(['staging', 'production'], 'clusters:\n  production:\n    readOnly: true\n'));
  let client: Client;
  before(async () => {
    client = await mcpClient(svc.server.url, TEST_TOKEN);
  });
  after(async () => {
    await client.close();
  });

  it('every tool schema offers cluster; a call without it is an error naming the choices', async () => {
    const { tools } = await client.listTools();
    for (const t of tools) expect(t.inputSchema.properties, t.name).to.have.property('cluster');
    const refused = (await client.callTool({ name: 'operate', arguments: { intent: 'scale web in x to 4' } })) as Called;
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.contain('svc serves 2 clusters (staging, production)');
    expect(svc.fleet.clusters.staging.requests).to.deep.equal([]);
    expect(svc.fleet.clusters.production.requests).to.deep.equal([]);
  });

  it('operate on staging reaches staging only; the read-only production refuses execution before any write', async () => {
    svc.chat.script({ content: 'ok' }, { content: planJson([scaleWeb(4)]) });
    const start = (await client.callTool({ name: 'operate', arguments: { intent: 'scale web in x to 4', cluster: 'staging' } })) as Called;
    expect(start.isError, textOf(start)).to.not.equal(true);
    const sessionId = (start.structuredContent as { result: { sessionId: string } }).result.sessionId;
    const done = (await client.callTool({ name: 'operate', arguments: { sessionId, executeChoice: 1, cluster: 'staging' } })) as Called;
    expect((done.structuredContent as { result: { status: string } }).result.status).to.equal('executed');
    expect(svc.fleet.clusters.staging.objects.get(WEB)!.spec.replicas).to.equal(4);
    expect(svc.fleet.clusters.production.requests).to.deep.equal([]);

    svc.chat.script({ content: 'ok' }, { content: planJson([scaleWeb(4)]) });
    const prod = (await client.callTool({ name: 'operate', arguments: { intent: 'scale web in x to 4', cluster: 'production' } })) as Called;
    const prodSession = (prod.structuredContent as { result: { sessionId: string } }).result.sessionId;
    const refused = (await client.callTool({ name: 'operate', arguments: { sessionId: prodSession, executeChoice: 1, cluster: 'production' } })) as Called;
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.contain('cluster production is read-only');
    expect(svc.fleet.writes('production')).to.deep.equal([]);
    expect(svc.fleet.clusters.production.objects.get(WEB)!.spec.replicas).to.equal(2);
  });
});
