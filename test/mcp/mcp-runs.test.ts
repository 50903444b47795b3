import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer, type ChatReply } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { mcpClient } from '../support/mcp-client.js';
import { buildTestApp, TEST_DATA_DIR, TEST_TOKEN } from '../support/test-app.js';
import { appParts } from '../../infrastructure/composition-root.js';

const getWeb: ChatReply = {
  toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
};
const INTENT = { intent: 'scale web in namespace x to 5 replicas' };

/** The official MCP client: progress notifications for a tools/call with a progressToken, notifications/cancelled on abort. */
describe('MCP: progress notifications and cancellation of a tools/call', function () {
  this.timeout(30_000);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let server: RunningServer;
  let client: Client;
  const tracer = new RecordingTracer();

  before(async () => {
    [kube, chat] = await Promise.all([KubeApiServer.start(), OpenAiChatServer.start()]);
    kube.create(webManifest(2));
    kube.settle();
    const t = buildTestApp(
      {
        OPENAI_API_KEY: chat.apiKey,
        OPENAI_BASE_URL: chat.baseUrl,
        SVC_LLM_MODEL: 'gpt-test',
        KUBECONFIG: kube.writeKubeconfig(),
        SVC_RUNS_HEARTBEAT_MS: '50',
        SVC_DATA_DIR: mkdtempSync(path.join(TEST_DATA_DIR, 'mcp-runs-')),
      },
      { tracer },
    );
    server = await startServer(appParts(t.container));
    client = await mcpClient(server.url, TEST_TOKEN);
  });
  after(async () => {
    await client.close();
    await server.close();
    await Promise.all([kube.close(), chat.close()]);
  });

  it('a call with a progressToken gets the run events as notifications/progress, heartbeats between, then its result', async () => {
    chat.script({ ...getWeb, delayMs: 200 }, { content: 'scale it to 5.', delayMs: 200 }, { content: planJson([scaleWeb(5)]) });
    const got: Progress[] = [];
    const result = await client.callTool({ name: 'operate', arguments: INTENT }, undefined, { onprogress: (p) => got.push(p) });
    expect(result.isError).to.not.equal(true);
    expect((result.structuredContent as { result: { status: string } }).result.status).to.equal('awaiting_approval');
    const events = got.map((p) => JSON.parse(p.message!) as { type: string; data?: Record<string, unknown> });
    const types = events.map((e) => e.type).filter((t) => t !== 'heartbeat');
    expect(types).to.deep.equal(['model-call', 'function-call', 'model-call', 'model-call', 'dry-run', 'done']);
    expect(events.find((e) => e.type === 'function-call')!.data).to.deep.equal({ name: 'get_resource' });
    expect(events.at(-1)).to.deep.equal({ type: 'done', data: { status: 'succeeded' } });
    expect(events.filter((e) => e.type === 'heartbeat').length).to.be.at.least(2);
    const numbers = got.map((p) => p.progress);
    expect(numbers).to.deep.equal(numbers.map((_, i) => i + 1));
  });

  it("executing with a progressToken: svc's verdict steps come as verify progress notifications (docs/verify.md)", async () => {
    chat.script({ content: 'ok' }, { content: planJson([scaleWeb(3)]) });
    const start = await client.callTool({ name: 'operate', arguments: { intent: 'scale web in namespace x to 3 replicas' } });
    const sessionId = (start.structuredContent as { result: { sessionId: string } }).result.sessionId;
    const got: Progress[] = [];
    const result = await client.callTool({ name: 'operate', arguments: { sessionId, executeChoice: 1 } }, undefined, { onprogress: (p) => got.push(p) });
    expect((result.structuredContent as { result: { status: string } }).result.status).to.equal('executed');
    const verify = got.map((p) => JSON.parse(p.message!) as { type: string; data: Record<string, unknown> }).filter((e) => e.type === 'verify');
    expect(verify.map((e) => e.data.step)).to.include.members(['snapshot', 'observed', 'verdict']);
    expect(verify.find((e) => e.data.step === 'verdict')!.data).to.deep.include({ verdict: 'healthy' });
  });

  it('a call without a progressToken is answered as plain JSON, as before', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'version', arguments: {} } }),
    });
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
  });

  it('notifications/cancelled (the client aborting) cancels the run: the model request is aborted, nothing more runs', async () => {
    chat.requests.length = 0;
    tracer.spans.length = 0;
    chat.script(getWeb, { hang: true });
    const abort = new AbortController();
    let modelCalls = 0;
    const call = client.callTool({ name: 'operate', arguments: INTENT }, undefined, {
      signal: abort.signal,
      onprogress: (p) => {
        if (JSON.parse(p.message!).type === 'model-call' && ++modelCalls === 2) abort.abort('changed my mind');
      },
    });
    const outcome = await call.then(
      () => 'answered',
      (e: Error) => e.message,
    );
    expect(outcome).to.not.equal('answered');
    const asked = Date.now();
    for (; Date.now() - asked < 2000;) {
      if (tracer.spans.some((s) => s.name === 'execute_tool operate' && s.ended)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const span = tracer.spans.find((s) => s.name === 'execute_tool operate')!;
    expect(span.ended, 'the tool run ended within 2 s of the cancel').to.equal(true);
    expect(span.attributes['svc.tool.success']).to.equal(false);
    await new Promise((r) => setTimeout(r, 200));
    expect(chat.requests).to.have.length(2);
  });
});
