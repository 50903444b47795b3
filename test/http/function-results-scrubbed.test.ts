import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { analysisAnswer, callFn } from '../support/remediation-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

const hex = () => randomBytes(12).toString('hex');

describe('function results are scrubbed of credentials before they reach the AI provider (real loop, chat server, Kubernetes stand-in)', () => {
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;

  before(async () => {
    chat = await OpenAiChatServer.start();
    kube = await KubeApiServer.start();
  });
  after(async () => {
    await kube.close();
    await chat.close();
  });

  it('env values, Secret data, URLs with userinfo, bearer tokens, password pairs and token shapes in logs never appear in a request', async () => {
    const canary = {
      env: `c4n4ry-env-${hex()}`,
      url: `c4n4ry-url-${hex()}`,
      secret: `c4n4ry-secret-${hex()}`,
      stringData: `c4n4ry-string-${hex()}`,
      bearer: `c4n4ry-bearer-${hex()}`,
      logPassword: `c4n4ry-log-${hex()}`,
      github: `ghp_${randomBytes(18).toString('hex')}`,
      lastApplied: `c4n4ry-applied-${hex()}`,
    };
    const container = {
      name: 'app',
      image: 'ghcr.io/acme/api:2',
      args: [`--database=postgres://admin:${canary.url}@db.x:5432/app`],
      env: [
        { name: 'DB_PASSWORD', value: canary.env },
        { name: 'LOG_LEVEL', value: 'debug' },
      ],
    };
    kube.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'api-1',
        namespace: 'x',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
            spec: { containers: [{ env: [{ name: 'DB_PASSWORD', value: canary.lastApplied }] }] },
          }),
        },
      },
      spec: { containers: [container] },
      status: { phase: 'Running', containerStatuses: [{ name: 'app', ready: false, restartCount: 3, state: { running: {} } }] },
    });
    kube.put({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'x' },
      type: 'Opaque',
      data: { password: Buffer.from(canary.secret).toString('base64') },
      stringData: { token: canary.stringData },
    });
    kube.logs.set(
      'x/api-1/app',
      [
        'starting api',
        `connecting with Authorization: Bearer ${canary.bearer}`,
        `config loaded: user=admin password=${canary.logPassword} pool=10`,
        `pushing with token ${canary.github}`,
        'FATAL could not connect to db.x:5432',
      ].join('\n'),
    );
    const pod = { apiVersion: 'v1', kind: 'Pod', name: 'api-1', namespace: 'x' };
    chat.script(
      {
        toolCalls: [
          { name: 'get_resource', arguments: JSON.stringify(pod) },
          { name: 'describe_resource', arguments: JSON.stringify(pod) },
          { name: 'get_resource', arguments: JSON.stringify({ ...pod, fieldPath: 'spec.containers[name=app].env' }) },
          { name: 'get_resource', arguments: JSON.stringify({ ...pod, fieldPath: 'metadata.annotations' }) },
          { name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', name: 'db', namespace: 'x' }) },
        ],
      },
      callFn('get_pod_logs', { namespace: 'x', pod: 'api-1' }),
      { content: 'api cannot reach its database' },
      { content: analysisAnswer({ actions: [], rootCause: 'api-1 cannot connect to its database' }) },
    );
    const { app } = buildTestApp({ OPENAI_API_KEY: chat.apiKey, OPENAI_BASE_URL: chat.baseUrl, SVC_LLM_MODEL: 'gpt-test', KUBECONFIG: kube.writeKubeconfig() });
    const res = await request(app).post('/api/v1/tools/remediate').set(auth).send({ issue: 'api-1 in x keeps restarting' }).expect(200);
    expect(res.body.data.result.rootCause).to.equal('api-1 cannot connect to its database');

    const sent = JSON.stringify(chat.requests);
    for (const [what, value] of Object.entries(canary)) {
      expect(sent, what).not.to.contain(value);
      expect(sent, `${what} (base64)`).not.to.contain(Buffer.from(value).toString('base64'));
    }
    // the model still sees what it needs: names, keys, hosts and the crash line
    const results = chat.requests[2].messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content);
    expect(results).to.have.length(6);
    expect(results[2]).to.contain('"name":"DB_PASSWORD","value":"***"').and.contain('"name":"LOG_LEVEL","value":"debug"');
    expect(results[0]).to.contain('postgres://***:***@db.x:5432/app');
    expect(results[4]).to.contain('"data":{"password":"***"}').and.contain('"stringData":{"token":"***"}');
    expect(results[5]).to.contain('Authorization: Bearer ***').and.contain('password=*** pool=10').and.contain('FATAL could not connect to db.x:5432');
  });
});
