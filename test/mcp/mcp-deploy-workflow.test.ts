import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { TOKENS } from '../../infrastructure/tokens.js';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { mcpClient } from '../support/mcp-client.js';
import { runWorkflow, WorkflowStandIns } from '../support/workflow-harness.js';

type Json = Record<string, any>;

describe('deployment workflow over MCP (Streamable HTTP), against the stand-ins', () => {
  let s: WorkflowStandIns;
  let server: AccessServer;
  let client: Client;

  before(async () => {
    s = await WorkflowStandIns.start();
    server = await startAccessServer({ env: s.env(), overrides: s.overrides() });
    await s.seedOrgData(server.container);
    client = await mcpClient(server.url, TEST_TOKEN);
  });

  after(async () => {
    await client.close();
    await server.stop();
    await s.close();
  });

  const call = async (name: string, args: Record<string, unknown>): Promise<Json> => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, JSON.stringify(result.structuredContent)).to.not.equal(true);
    return (result.structuredContent as Json).result;
  };

  it('runs the same five tools to ready objects, and refuses out-of-order calls the same way', async () => {
    s.answer();
    const steps = await runWorkflow(call);
    const dep = steps.at(-1)!.result;
    expect(dep.status).to.equal('ready');
    expect(dep.objects.map((o: Json) => `${o.kind}/${o.namespace}/${o.name}`)).to.deep.equal(['Service/x/web', 'Deployment/x/web']);
    expect(s.kube.objects.get('/apis/apps/v1/namespaces/x/deployments/web')!.status.availableReplicas).to.equal(2);

    const solutionId = steps[0].result.solutions[0].solutionId;
    const stored = await server.container.resolve(TOKENS.SessionStore).get<Json>('solution', solutionId);
    expect(stored!.state.deployment).to.include({ ready: true, deployments: 1 });

    const unknown = await client.callTool({ name: 'generateManifests', arguments: { solutionId: `sol_${'b'.repeat(32)}` } });
    expect(unknown.isError).to.equal(true);
    const error = (unknown.structuredContent as Json).error;
    expect(error.code).to.equal('VALIDATION_ERROR');
    expect(error.message).to.match(/Call recommend/);
  });
});
