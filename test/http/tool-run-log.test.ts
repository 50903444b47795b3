import { expect } from 'chai';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

/** Logs a person can follow (issue 41): one info line per tool run, one debug line per model call. */
describe('the log of a tool run', () => {
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  beforeEach(async () => {
    [kube, chat] = await Promise.all([KubeApiServer.start(), OpenAiChatServer.start()]);
    kube.create(webManifest(2));
    kube.settle();
  });
  afterEach(async () => Promise.all([kube.close(), chat.close()]));

  it('says per run the tool, the caller, the session, the outcome, the duration, model calls, tokens, cluster writes and ledger entries', async () => {
    const { app, logger } = buildTestApp({
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
    });
    chat.script({ content: 'ok', usage: { prompt: 100, completion: 7 } }, { content: planJson([scaleWeb(3)]), usage: { prompt: 200, completion: 30 } });
    const proposed = (await request(app).post('/api/v1/tools/operate').set(auth).send({ intent: 'scale web in x to 3' }).expect(200)).body.data.result;
    const executed = (await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId: proposed.sessionId, executeChoice: 1 }).expect(200)).body
      .data.result;
    await request(app).post('/api/v1/tools/operate').set(auth).send({ bogus: 1 }).expect(400);
    await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId: proposed.sessionId, executeChoice: 1 }).expect(400);

    const runs = logger.lines.filter((l) => l.level === 'info' && l.msg === 'tool run');
    // the refused input never ran: three runs, not four
    expect(runs).to.have.length(3);
    const [propose, execute, again] = runs.map((l) => l.fields);
    expect(propose).to.deep.include({ tool: 'operate', outcome: 'success', modelCalls: 2, tokens: { input: 300, output: 37 }, clusterWrites: 0 });
    expect(propose.caller).to.deep.equal({ kind: 'static', issuer: 'svc', subject: 'admin', username: 'admin' });
    expect(propose.durationMs).to.be.a('number').at.least(0);
    expect(propose.requestId).to.be.a('string');
    expect(execute).to.deep.include({ tool: 'operate', outcome: 'success', sessionId: proposed.sessionId, modelCalls: 0, clusterWrites: 1 });
    expect(execute.ledgerIds).to.deep.equal([executed.execution.outcome.actions[0].ledgerId]);
    expect(again).to.deep.include({ outcome: 'VALIDATION_ERROR', sessionId: proposed.sessionId, clusterWrites: 0 });

    const calls = logger.lines.filter((l) => l.level === 'debug' && l.msg === 'model call').map((l) => l.fields);
    expect(calls).to.have.length(2);
    expect(calls[1]).to.deep.include({ provider: 'openai-compatible', model: 'gpt-test', outcome: 'success', inputTokens: 200, outputTokens: 30 });
    expect(calls[1].durationMs).to.be.a('number');
  });
});
