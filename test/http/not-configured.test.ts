import { expect } from 'chai';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { auth, buildTestApp } from '../support/test-app.js';

const AI =
  'set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server), or SVC_LLM_PROVIDER=anthropic (ANTHROPIC_API_KEY) or bedrock (AWS_REGION, SVC_LLM_MODEL)';
const CLUSTER = 'set KUBECONFIG or run svc inside a cluster';

/** Every tool step that needs both a model and a cluster, called as a user would start it. */
const BOTH: [string, object][] = [
  ['recommend', { intent: 'deploy a postgres database for the shop' }],
  ['remediate', { issue: 'the web pods in shop keep restarting' }],
  ['operate', { intent: 'scale web in shop to 5 replicas' }],
  ['manageOrgData', { dataType: 'capabilities', operation: 'scan' }],
];

describe('a tool that needs a model and a cluster, with either or both missing: one 500 naming every setting', function () {
  this.timeout(20000);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  before(async () => {
    kube = await KubeApiServer.start();
    chat = await OpenAiChatServer.start();
  });
  after(async () => {
    await kube.close();
    await chat.close();
  });
  const call = (env: Record<string, string>, tool: string, body: object) =>
    request(buildTestApp(env).app).post(`/api/v1/tools/${tool}`).set(auth).send(body).expect(500);

  for (const [tool, body] of BOTH) {
    it(`${tool}: neither configured names both, one missing names that one`, async () => {
      const neither = await call({}, tool, body);
      expect(neither.body.error).to.deep.equal({
        code: 'EXECUTION_ERROR',
        message: `The AI provider and the Kubernetes cluster are not configured: ${AI}; ${CLUSTER}`,
      });
      const noModel = await call({ KUBECONFIG: kube.writeKubeconfig() }, tool, body);
      expect(noModel.body.error.message).to.equal(`The AI provider is not configured: ${AI}`);
      const noCluster = await call({ OPENAI_API_KEY: chat.apiKey, OPENAI_BASE_URL: chat.baseUrl, SVC_LLM_MODEL: 'gpt-test' }, tool, body);
      expect(noCluster.body.error.message).to.equal(`The Kubernetes cluster is not configured: ${CLUSTER}`);
      expect(chat.requests).to.have.length(0);
    });
  }
});
