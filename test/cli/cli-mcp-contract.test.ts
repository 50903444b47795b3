import { expect } from 'chai';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { callChecked, ContractChecks, onDefaults, sdkClient } from '../support/agent-contract.js';
import { CLI_PATH } from '../support/run-cli.js';

type Json = Record<string, any>;

/**
 * Agents as clients over stdio (issue 41): `svc mcp` launched as an agent
 * launches it, the official SDK client on its defaults, against svc on its
 * verify defaults: propose, approve with the plan digest (with a progress
 * token), stop, an error; every answer held to the tool's outputSchema.
 */
describe('svc mcp (stdio): the approve flow answers in time and matches its schemas', function () {
  this.timeout(120_000);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let server: AccessServer;

  before(async () => {
    [kube, chat] = await Promise.all([KubeApiServer.start(), OpenAiChatServer.start()]);
    kube.create(webManifest(2));
    kube.settle();
    server = await startAccessServer({ env: onDefaults(kube, chat) });
  });
  after(async () => {
    await server.stop();
    await Promise.all([kube.close(), chat.close()]);
  });

  it('proposes, approves with a progress token in well under 60 s, stops, and answers an error, each schema-valid', async () => {
    const openapi = (await (await fetch(`${server.url}/api/v1/openapi`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } })).json()) as Json;
    const checks = new ContractChecks(openapi.data ?? openapi);
    const mcp = await sdkClient(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI_PATH, 'mcp', '--url', server.url],
        env: { PATH: process.env.PATH ?? '', SVC_AUTH_TOKEN: TEST_TOKEN },
        stderr: 'pipe',
      }),
    );
    try {
      chat.script({ content: 'ok' }, { content: planJson([scaleWeb(3)]) });
      const proposed = (await callChecked(checks, mcp, 'operate', { intent: 'scale web in x to 3' }, 'stdio propose')).data.result;
      expect(proposed.status).to.equal('awaiting_approval');
      const progress: Progress[] = [];
      const approved = await callChecked(
        checks,
        mcp,
        'operate',
        { sessionId: proposed.sessionId, executeChoice: 1, planDigest: proposed.planDigest },
        'stdio approve',
        progress,
      );
      expect(approved.data.result.status).to.equal('executed');
      expect(approved.data.result.execution.approval.by.id).to.be.a('string');
      expect(approved.ms).to.be.below(30_000);
      chat.script({ content: 'ok' }, { content: planJson([scaleWeb(4)]) });
      const other = (await callChecked(checks, mcp, 'operate', { intent: 'scale web in x to 4' }, 'stdio propose 2')).data.result;
      expect((await callChecked(checks, mcp, 'operate', { sessionId: other.sessionId, executeChoice: 2 }, 'stdio stop')).data.result.status).to.equal(
        'stopped',
      );
      expect((await callChecked(checks, mcp, 'operate', { bogus: 1 }, 'stdio bad arguments')).result.isError).to.equal(true);
    } finally {
      await mcp.client.close();
    }
    expect(checks.checked).to.have.length(5);
  });
});
