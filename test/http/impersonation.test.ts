import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { startServer } from '../../interfaces/http/server.js';
import { KubeApiServer, type RecordedRequest } from '../../lab/sandbox/kube/kube-api-server.js';
import { OidcServer } from '../support/oidc-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { analysisAnswer, callFn, WEB, webDeployment } from '../support/remediation-fixtures.js';
import { auth, buildTestApp, type TestApp } from '../support/test-app.js';
import { runWorkflow, WorkflowStandIns } from '../support/workflow-harness.js';
import { appParts } from '../../infrastructure/composition-root.js';

type Json = Record<string, any>;
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ALICE = 'alice-token-0123456789abcdef';
const asAlice = { Authorization: `Bearer ${ALICE}` };
const PODS = { apiVersion: 'v1', kind: 'Pod', namespace: 'x', labelSelector: 'app=web' };
/** Requests that did not act as alice of group sre. */
const notAsAlice = (requests: RecordedRequest[]) =>
  requests.filter((r) => r.impersonateUser !== 'svc:alice' || r.impersonateGroups.join(',') !== 'sre').map((r) => `${r.method} ${r.path}`);
const impersonating = (requests: RecordedRequest[]) => requests.filter((r) => r.impersonateUser !== undefined || r.impersonateGroups.length > 0);

describe('SVC_KUBE_IMPERSONATE: the cluster acts as the caller (REST, Kubernetes stand-in with RBAC, scripted model)', function () {
  this.timeout(60000);
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-impersonate-'));
  const tokens = path.join(dir, 'tokens');
  writeFileSync(tokens, `# name role sha256 groups\nalice operator ${sha(ALICE)} sre\n`);
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('remediate', () => {
    let kube: KubeApiServer;
    let chat: OpenAiChatServer;
    beforeEach(async () => {
      kube = await KubeApiServer.start();
      kube.create(webDeployment('nginx:9.9-missing'));
      kube.tick(3);
      chat = await OpenAiChatServer.start();
    });
    afterEach(async () => {
      await kube.close();
      await chat.close();
    });
    const env = (extra: Record<string, string | undefined> = {}) => ({
      SVC_AUTH_TOKENS_FILE: tokens,
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      SVC_LLM_MAX_RETRIES: '0',
      KUBECONFIG: kube.writeKubeconfig(),
      ...extra,
    });
    const investigate = (t: TestApp, who: Json) => {
      chat.script(
        callFn('list_resources', PODS),
        callFn('get_resource', WEB),
        { content: 'The tag nginx:9.9-missing does not exist.' },
        { content: analysisAnswer() },
      );
      return request(t.app).post('/api/v1/tools/remediate').set(who).send({ issue: 'web in namespace x never becomes ready' });
    };

    it('a refused read is told to the model; a refused write is 403 FORBIDDEN naming verb, resource and namespace, nothing written; every request carried the caller', async () => {
      kube.rbac.mayImpersonate = true;
      kube.rbac.deny({ user: 'svc:alice', verb: 'list', resource: 'pods', namespace: 'x' });
      const tracer = new RecordingTracer();
      const t = buildTestApp(env({ SVC_KUBE_IMPERSONATE: 'true' }), { tracer });
      const view = (await investigate(t, asAlice).expect(200)).body.data.result;
      expect(view.status).to.equal('awaiting_approval');
      expect(view.investigation.functionsCalled.map((f: Json) => [f.name, f.ok])).to.deep.equal([
        ['list_resources', false],
        ['get_resource', true],
      ]);
      // the model was told the read was refused, in the cluster's words, and went on
      const told = chat.requests[1].messages.find((m: Json) => m.role === 'tool').content as string;
      expect(JSON.parse(told).error).to.match(/^Kubernetes does not let svc:alice list pods in namespace "x" \(during list Pod in x\): pods is forbidden/);
      expect(view.actions[0].dryRun).to.deep.equal({ accepted: true });

      // alice's rights change before she approves: the apply is the cluster's refusal, not a 500
      kube.rbac.deny({ user: 'svc:alice', verb: 'patch', resource: 'deployments', namespace: 'x' });
      const refused = await request(t.app).post('/api/v1/tools/remediate').set(asAlice).send({ sessionId: view.sessionId, executeChoice: 1 }).expect(403);
      expect(refused.body.error.code).to.equal('FORBIDDEN');
      expect(refused.body.error.message).to.match(
        /^Kubernetes does not let svc:alice patch deployments.apps in namespace "x" \(during dry-run patch Deployment x\/web\): /,
      );
      expect(refused.body.error.message).to.contain(
        'deployments.apps "web" is forbidden: User "svc:alice" cannot patch resource "deployments" in API group "apps" in the namespace "x"',
      );
      expect(refused.body.error.details).to.deep.equal({
        reason: 'Forbidden',
        code: 403,
        user: 'svc:alice',
        verb: 'patch',
        resource: 'deployments',
        group: 'apps',
        namespace: 'x',
      });
      expect(kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All')).to.deep.equal([]);
      expect(kube.objects.get(kube.pathOf('apps/v1', 'Deployment', 'web', 'x'))!.spec.template.spec.containers[0].image).to.equal('nginx:9.9-missing');
      expect(kube.requests.length).to.be.greaterThan(3);
      expect(notAsAlice(kube.requests)).to.deep.equal([]);
      // each cluster call's span says whom it acted as
      const clusterSpans = tracer.spans.filter((sp) => sp.attributes['k8s.method'] !== undefined);
      expect(clusterSpans.length).to.be.greaterThan(3);
      expect(new Set(clusterSpans.map((sp) => sp.attributes['svc.kube.identity']))).to.deep.equal(new Set(['svc:alice']));
    });

    it('svc may not impersonate (no kube.impersonate grant): every read is refused to the model, the proposal says why and is not executed', async () => {
      const t = buildTestApp(env({ SVC_KUBE_IMPERSONATE: 'true' }));
      const view = (await investigate(t, asAlice).expect(200)).body.data.result;
      expect(view.investigation.functionsCalled.map((f: Json) => f.ok)).to.deep.equal([false, false]);
      expect(view.actions[0].dryRun.accepted).to.equal(false);
      expect(view.actions[0].dryRun.message).to.contain('cannot impersonate resource "users"');
      // the cluster refused the caller at the dry run: executing is 403 FORBIDDEN, as every other cluster 403 (never 400)
      const refused = await request(t.app).post('/api/v1/tools/remediate').set(asAlice).send({ sessionId: view.sessionId, executeChoice: 1 }).expect(403);
      expect(refused.body.error.code).to.equal('FORBIDDEN');
      expect(refused.body.error.message).to.contain('cannot be executed').and.contain('cannot impersonate resource "users"');
      expect(kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All')).to.deep.equal([]);
    });

    it('over MCP with an OIDC caller: their username and groups claim on every request; a refused apply is a FORBIDDEN tool error; a system: group is refused before any request', async () => {
      const idp = await OidcServer.start();
      kube.rbac.mayImpersonate = true;
      const t = buildTestApp(
        env({ SVC_AUTH_TOKENS_FILE: undefined, SVC_AUTH_TOKEN: undefined, SVC_ROLES: 'operator=sre', SVC_KUBE_IMPERSONATE: 'true', ...idp.env() }),
      );
      const server = await startServer(appParts(t.container));
      const mcp = async (token: string, args: Json) => {
        const client = new Client({ name: 'svc-test', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
        );
        try {
          return (await client.callTool({ name: 'remediate', arguments: args })) as { isError?: boolean; structuredContent: Json };
        } finally {
          await client.close();
        }
      };
      try {
        const bob = await idp.token({ sub: 'bob', groups: ['sre', 'oncall'] });
        chat.script(callFn('get_resource', WEB), { content: 'The tag nginx:9.9-missing does not exist.' }, { content: analysisAnswer() });
        const view = (await mcp(bob, { issue: 'web in namespace x never becomes ready' })).structuredContent.result;
        expect(view.status).to.equal('awaiting_approval');
        kube.rbac.deny({ group: 'oncall', verb: 'patch', resource: 'deployments', namespace: 'x' });
        const refused = await mcp(bob, { sessionId: view.sessionId, executeChoice: 1 });
        expect(refused.isError).to.equal(true);
        expect(refused.structuredContent.error.code).to.equal('FORBIDDEN');
        expect(refused.structuredContent.error.message).to.match(/^Kubernetes does not let oidc:bob patch deployments.apps in namespace "x"/);
        expect(kube.requests.length).to.be.greaterThan(3);
        expect(kube.requests.filter((r) => r.impersonateUser !== 'oidc:bob' || r.impersonateGroups.join(',') !== 'sre,oncall')).to.deep.equal([]);

        // a groups claim (or username) naming a Kubernetes group is 403 at the door: no model call, no cluster request
        const made = kube.requests.length;
        const asked = chat.requests.length;
        for (const claims of [
          { sub: 'mallory', groups: ['sre', 'system:masters'] },
          { sub: 'system:admin', groups: ['sre'] },
        ]) {
          const token = await idp.token(claims);
          const res = await request(server.url)
            .post('/mcp')
            .set({ Authorization: `Bearer ${token}`, Accept: 'application/json, text/event-stream' })
            .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'remediate', arguments: { issue: 'web in namespace x' } } })
            .expect(403);
          expect(res.body.error.code).to.equal('FORBIDDEN');
          expect(res.body.error.message).to.match(/is reserved by Kubernetes \(system:\)/);
        }
        expect(chat.requests.length).to.equal(asked);
        expect(kube.requests.length).to.equal(made);
      } finally {
        await server.close();
        await idp.close();
      }
    });

    it('no request carries Impersonate-* with SVC_KUBE_IMPERSONATE unset, nor for SVC_AUTH_TOKEN (svc’s own identity) with it on', async () => {
      kube.rbac.mayImpersonate = true;
      const off = buildTestApp(env());
      expect((await investigate(off, asAlice).expect(200)).body.data.result.investigation.functionsCalled.map((f: Json) => f.ok)).to.deep.equal([true, true]);
      const tracer = new RecordingTracer();
      const admin = buildTestApp(env({ SVC_KUBE_IMPERSONATE: 'true' }), { tracer });
      expect((await investigate(admin, auth).expect(200)).body.data.result.status).to.equal('awaiting_approval');
      const clusterSpans = tracer.spans.filter((sp) => sp.attributes['k8s.method'] !== undefined);
      expect(new Set(clusterSpans.map((sp) => sp.attributes['svc.kube.identity']))).to.deep.equal(new Set(['svc']));
      expect(kube.requests.length).to.be.greaterThan(6);
      expect(impersonating(kube.requests)).to.deep.equal([]);
    });
  });

  describe('deployManifests', () => {
    let s: WorkflowStandIns;
    beforeEach(async () => {
      s = await WorkflowStandIns.start();
      s.kube.rbac.mayImpersonate = true;
    });
    afterEach(() => s.close());

    it('an object the caller may not write is 403 FORBIDDEN before anything is applied; every request carried the caller', async () => {
      const t = buildTestApp({ ...s.env(), SVC_AUTH_TOKENS_FILE: tokens, SVC_KUBE_IMPERSONATE: 'true' }, s.overrides());
      await s.seedOrgData(t.container);
      const call = async (tool: string, params: Json) => {
        // alice's rights change once her manifests are generated: she may no longer write Services in x
        if (tool === 'deployManifests') s.kube.rbac.deny({ user: 'svc:alice', verb: 'patch', resource: 'services', namespace: 'x' });
        const res = await request(t.app).post(`/api/v1/tools/${tool}`).set(asAlice).send(params);
        expect(res.status, JSON.stringify(res.body)).to.equal(tool === 'deployManifests' ? 403 : 200);
        return res.status === 200 ? res.body.data.result : res.body;
      };
      s.answer();
      const steps = await runWorkflow(call, undefined, { timeout: 20 });
      const solutionId = steps[0].result.solutions[0].solutionId as string;
      const refused = steps.at(-1)!.result.error;
      expect(refused.code).to.equal('FORBIDDEN');
      expect(refused.message).to.match(
        /^Kubernetes does not let svc:alice patch services in namespace "x" \(during dry-run apply Service x\/web\): services "web" is forbidden/,
      );
      // nothing applied, not even the Deployment the caller may write
      expect(s.kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All')).to.deep.equal([]);
      expect(s.kube.objects.has(s.kube.pathOf('apps/v1', 'Deployment', 'web', 'x'))).to.equal(false);
      expect(s.kube.requests.length).to.be.greaterThan(5);
      expect(notAsAlice(s.kube.requests)).to.deep.equal([]);

      s.kube.rbac.allowAll();
      const again = await request(t.app).post('/api/v1/tools/deployManifests').set(asAlice).send({ solutionId, timeout: 20 }).expect(200);
      const done = again.body.data.result;
      expect(done.status, JSON.stringify(done)).to.equal('ready');
      expect(notAsAlice(s.kube.requests)).to.deep.equal([]);
    });

    it('generateManifests: a dry run of the repair loop that the cluster refuses to the caller is 403 FORBIDDEN naming it, not a 500; nothing written', async () => {
      const t = buildTestApp({ ...s.env(), SVC_AUTH_TOKENS_FILE: tokens, SVC_KUBE_IMPERSONATE: 'true' }, s.overrides());
      await s.seedOrgData(t.container);
      let refused: Json | undefined;
      const call = async (tool: string, params: Json) => {
        // alice may not write Services in x when her manifests are checked
        if (tool === 'generateManifests') s.kube.rbac.deny({ user: 'svc:alice', verb: 'patch', resource: 'services', namespace: 'x' });
        const res = await request(t.app).post(`/api/v1/tools/${tool}`).set(asAlice).send(params);
        if (tool === 'generateManifests') {
          expect(res.status, JSON.stringify(res.body)).to.equal(403);
          refused = res.body.error;
          throw new Error('stop after generateManifests');
        }
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body.data.result;
      };
      s.answer();
      await runWorkflow(call).catch((err: Error) => {
        if (err.message !== 'stop after generateManifests') throw err;
      });
      expect(refused, 'generateManifests answered').to.not.equal(undefined);
      expect(refused!.code).to.equal('FORBIDDEN');
      expect(refused!.message).to.match(/svc:alice patch services in namespace "x"/);
      expect(s.kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All')).to.deep.equal([]);
      expect(notAsAlice(s.kube.requests)).to.deep.equal([]);
    });
  });
});
