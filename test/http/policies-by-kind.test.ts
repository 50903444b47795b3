import { expect } from 'chai';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { ok } from '../support/orgdata-http.js';
import { scaleWeb } from '../support/operate-fixtures.js';
import { analysisAnswer, scriptedEnv, webDeployment } from '../support/remediation-fixtures.js';
import { freshDataDir } from '../support/orgdata-http.js';
import { auth, buildTestApp } from '../support/test-app.js';

const WEB_PATH = '/apis/apps/v1/namespaces/x/deployments/web';

const policy = (description: string, constraints: object[]) => ({
  description,
  triggers: [description.toLowerCase()],
  rationale: 'platform rule',
  createdBy: 'platform-team',
  constraints,
});

/** The issue's attack: policies found by meaning from the issue text never met a write the model chose for another kind. */
describe('policies by kind over HTTP: every stored policy checks the write, whatever the search returns (stand-in, embedded store, scripted model)', () => {
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;

  beforeEach(async () => {
    kube = await KubeApiServer.start();
    chat = await OpenAiChatServer.start();
  });
  afterEach(async () => {
    await kube.close();
    await chat.close();
  });

  it('an issue about a ConfigMap; the model scales the Deployment to 9 in automatic mode: "replicas at most 2" refuses it, nothing is written', async () => {
    kube.put(webDeployment('nginx:1.27', undefined, 1));
    const { app } = buildTestApp({ ...scriptedEnv(chat, kube), SVC_DATA_DIR: freshDataDir(), SVC_EMBEDDINGS_PROVIDER: 'local' });
    for (let i = 0; i < 8; i++)
      await ok(app, {
        dataType: 'policy',
        operation: 'create',
        document: policy(`ConfigMap app-config keys in x are upper case, typo checked, rule ${i}`, [
          { kind: 'ConfigMap', field: 'metadata.name', pattern: '[a-z0-9-]+' },
        ]),
      });
    await ok(app, {
      dataType: 'policy',
      operation: 'create',
      document: policy('Deployments run at most 2 replicas', [{ kind: 'Deployment', field: 'spec.replicas', maximum: 2, message: 'at most 2 replicas' }]),
    });
    chat.script(
      { content: 'The config map has a typo; web should also scale out.' },
      { content: analysisAnswer({ confidence: 0.99, actions: [{ ...scaleWeb(9), risk: 'low', rationale: 'more replicas' }] }) },
    );
    const res = await request(app)
      .post('/api/v1/tools/remediate')
      .set(auth)
      .send({ issue: 'ConfigMap app-config in x has a typo in LOG_LEVEL', mode: 'automatic', maxRiskLevel: 'high', confidenceThreshold: 0.5 })
      .expect(200);
    const view = res.body.data.result;
    // the search by meaning did not bring the replicas policy to the model: the check does not depend on it
    expect(JSON.stringify(chat.requests)).to.not.contain('at most 2 replicas');
    expect(view.actions[0].dryRun.reason).to.equal('PolicyViolation');
    expect(view.actions[0].dryRun.message).to.match(
      /^Deployment web would break policy "Deployments run at most 2 replicas" \([^)]+\): spec\.replicas at most 2 replicas \(must be at most 2, got 9\)$/,
    );
    expect(view.automaticExecution.executed).to.equal(false);
    expect(kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All')).to.deep.equal([]);
    expect((kube.objects.get(WEB_PATH) as { spec: { replicas: number } }).spec.replicas).to.equal(1);
  });
});
