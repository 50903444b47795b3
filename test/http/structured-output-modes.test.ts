import { expect } from 'chai';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

describe('SVC_LLM_STRUCTURED_OUTPUT json_object and none: the answer shape is in the instructions (real app, chat server, Kubernetes stand-in)', () => {
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;

  before(async () => {
    chat = await OpenAiChatServer.start();
    kube = await KubeApiServer.start();
    kube.create(webManifest(2));
    kube.settle();
  });
  after(async () => {
    await kube.close();
    await chat.close();
  });

  for (const mode of ['json_object', 'none', 'json_schema'] as const)
    it(`${mode}: operate's plan request ${mode === 'json_schema' ? 'sends the schema as response_format only' : 'carries the JSON schema and an example in its instructions'}`, async () => {
      chat.requests.length = 0;
      const env = { OPENAI_API_KEY: chat.apiKey, OPENAI_BASE_URL: chat.baseUrl, SVC_LLM_MODEL: 'gpt-test', KUBECONFIG: kube.writeKubeconfig() };
      const { app } = buildTestApp({ ...env, SVC_LLM_STRUCTURED_OUTPUT: mode });
      const getWeb = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };
      chat.script(
        { toolCalls: [{ name: 'get_resource', arguments: JSON.stringify(getWeb) }] },
        { content: 'scale web to 5' },
        { content: planJson([scaleWeb(5)]) },
      );
      const res = await request(app).post('/api/v1/tools/operate').set(auth).send({ intent: 'scale web in namespace x to 5 replicas' }).expect(200);
      expect(res.body.data.result.status).to.equal('awaiting_approval');
      const ask = chat.requests[2];
      const instructions: string = ask.messages[0].content;
      if (mode === 'json_schema') {
        expect(ask.response_format).to.have.nested.property('json_schema.name', 'operation_plan');
        expect(instructions).not.to.contain('that fits this JSON Schema');
        return;
      }
      expect(ask.response_format).to.deep.equal(mode === 'json_object' ? { type: 'json_object' } : undefined);
      expect(instructions).to.contain('that fits this JSON Schema:\n{').and.contain('"replicas":4').and.contain('"properties":{"summary":{');
    });
});
