import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { analysisAnswer, verifiedAnswer } from '../support/remediation-fixtures.js';
import { startAccessServer, TEST_TOKEN, type AccessServer } from '../support/access-server.js';
import { callChecked, ContractChecks, httpTransport, onDefaults, sdkClient } from '../support/agent-contract.js';
import { OidcServer } from '../support/oidc-server.js';

type Json = Record<string, any>;
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const WEB_TARGET = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };
const deleteWeb = { type: 'delete', target: WEB_TARGET, description: 'Delete web', risk: 'low', rationale: 'asked' };
/** executeChoice 1 with the plan digest the proposal (or refinement) showed: what an agent approves. */
const approval = (sessionId: string, planDigest: string) => ({ sessionId, executeChoice: 1, planDigest });
const PEOPLE = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789' };

/**
 * Agents as clients (issue 41): every flow an agent drives, over MCP with the
 * official SDK client on its defaults (Streamable HTTP; stdio is
 * test/cli/cli-mcp.test.ts's) and over REST, each answer held to its
 * declared schema (the SDK checks structuredContent against outputSchema;
 * ContractChecks checks it again, error results too, and REST answers
 * against the OpenAPI document). The approve cases run svc's verify
 * defaults (60 s window, 5 s stable, 10 s answer cap): they answer in well under 30 s.
 */
describe('agents as clients: every flow answers what its schema declares, in time', function () {
  this.timeout(120_000);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let server: AccessServer | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-contract-'));
  const tokensFile = path.join(dir, 'tokens');
  writeFileSync(tokensFile, `alice operator ${sha(PEOPLE.alice)}\nbob operator ${sha(PEOPLE.bob)}\n`);

  beforeEach(async () => {
    [kube, chat] = await Promise.all([KubeApiServer.start(), OpenAiChatServer.start()]);
    kube.create(webManifest(2));
    kube.settle();
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await Promise.all([kube.close(), chat.close()]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** svc on its verify and rollout defaults. */
  async function start(env: Record<string, string | undefined> = {}) {
    server = await startAccessServer({ env: onDefaults(kube, chat, env) });
    const openapi = (await (await fetch(`${server.url}/api/v1/openapi`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } })).json()) as Json;
    return { server, checks: new ContractChecks(openapi.data ?? openapi) };
  }

  async function rest(checks: ContractChecks, url: string, headers: Record<string, string>, tool: string, body: Json, label: string) {
    const res = await fetch(`${url}/api/v1/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Json;
    checks.rest(`/api/v1/tools/${tool}`, 'post', res.status, json, `${tool} ${label}`);
    return { status: res.status, body: json };
  }

  const proposeOperate = (replicas: number) => chat.script({ content: 'ok' }, { content: planJson([scaleWeb(replicas)]) });

  it('with a token: propose, refine, approve (with and without a progress token), stop, and the errors, over MCP and REST', async () => {
    const { server, checks } = await start();
    const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
    const mcp = await sdkClient(httpTransport(server.url, bearer));
    try {
      // operate over MCP: propose, refine, approve with a progress token on the defaults
      proposeOperate(3);
      const proposed = (await callChecked(checks, mcp, 'operate', { intent: 'scale web in x to 3' }, 'operate propose')).data.result;
      expect(proposed.status).to.equal('awaiting_approval');
      proposeOperate(4);
      const refined = (await callChecked(checks, mcp, 'operate', { sessionId: proposed.sessionId, refinedIntent: 'make it 4' }, 'operate refine')).data.result;
      expect(refined.status).to.equal('awaiting_approval');
      const progress: Progress[] = [];
      const approved = await callChecked(
        checks,
        mcp,
        'operate',
        approval(proposed.sessionId, refined.planDigest),
        'operate approve (progress token)',
        progress,
      );
      expect(approved.data.result.status).to.equal('executed');
      expect(approved.data.result.execution.approval.by).to.deep.include({ username: 'admin', kind: 'static' });
      expect(approved.data.result.execution.outcome.health.verdict).to.equal('healthy');
      expect(approved.ms).to.be.below(30_000);
      expect(progress.map((p) => JSON.parse(p.message!).type)).to.include('verify');
      // executing again: the closed refusal, as an error result
      const again = await callChecked(checks, mcp, 'operate', { sessionId: proposed.sessionId, executeChoice: 1 }, 'operate execute again');
      expect(again.result.isError).to.equal(true);

      // remediate over MCP: propose, approve without a progress token; another one stopped
      chat.script({ content: 'web wants 3' }, { content: analysisAnswer({ actions: [scaleWeb(3)] }) }, { content: verifiedAnswer(true) });
      const investigated = (await callChecked(checks, mcp, 'remediate', { issue: 'web in namespace x is overloaded' }, 'remediate propose')).data.result;
      expect(investigated.status).to.equal('awaiting_approval');
      const fixed = await callChecked(checks, mcp, 'remediate', approval(investigated.sessionId, investigated.planDigest), 'remediate approve');
      expect(fixed.ms).to.be.below(30_000);
      expect(fixed.data.result.execution.approval.by.id).to.be.a('string');
      chat.script({ content: 'web wants 2' }, { content: analysisAnswer({ actions: [scaleWeb(2)] }) });
      const other = (await callChecked(checks, mcp, 'remediate', { issue: 'web in namespace x is too big' }, 'remediate propose 2')).data.result;
      const stopped = (await callChecked(checks, mcp, 'remediate', { sessionId: other.sessionId, executeChoice: 2 }, 'remediate stop')).data.result;
      expect(stopped.status).to.equal('stopped');
      // errors: bad arguments, an unknown session, a wrong plan digest
      for (const [args, label] of [
        [{ bogus: 1 }, 'remediate bad arguments'],
        [{ sessionId: 'rem_00000000000000000000000000000000' }, 'remediate unknown session'],
      ] as const)
        expect((await callChecked(checks, mcp, 'remediate', args, label)).result.isError).to.equal(true);
      proposeOperate(5);
      const third = (await callChecked(checks, mcp, 'operate', { intent: 'scale web in x to 5' }, 'operate propose 3')).data.result;
      const wrongDigest = await callChecked(checks, mcp, 'operate', approval(third.sessionId, 'f'.repeat(64)), 'operate wrong digest');
      expect(wrongDigest.result.isError).to.equal(true);
      expect((await callChecked(checks, mcp, 'version', {}, 'version')).result.isError).to.not.equal(true);

      // the same flows over REST, held to the OpenAPI document
      proposeOperate(2);
      const r1 = await rest(checks, server.url, bearer, 'operate', { intent: 'scale web in x to 2' }, 'propose');
      expect(r1.status).to.equal(200);
      const t0 = Date.now();
      const r2 = await rest(checks, server.url, bearer, 'operate', approval(r1.body.data.result.sessionId, r1.body.data.result.planDigest), 'approve');
      expect(r2.status, JSON.stringify(r2.body)).to.equal(200);
      expect(Date.now() - t0).to.be.below(30_000);
      expect((await rest(checks, server.url, bearer, 'operate', { sessionId: third.sessionId, executeChoice: 2 }, 'stop')).status).to.equal(200);
      expect((await rest(checks, server.url, bearer, 'operate', { sessionId: third.sessionId, executeChoice: 1 }, 'execute stopped')).status).to.equal(400);
      expect((await rest(checks, server.url, bearer, 'remediate', { bogus: 1 }, 'bad arguments')).status).to.equal(400);
      expect((await rest(checks, server.url, {}, 'remediate', { issue: 'x' }, 'no token')).status).to.equal(401);
      expect(
        (await rest(checks, server.url, bearer, 'remediate', { sessionId: 'rem_00000000000000000000000000000000' }, 'unknown session')).status,
      ).to.be.oneOf([400, 404]);
    } finally {
      await mcp.client.close();
    }
    expect(checks.checked.length).to.be.at.least(20);
  });

  it('anonymous on loopback: the SDK client approves and gets a schema-valid answer, with and without a progress token', async () => {
    const { server, checks } = await start({ SVC_AUTH_TOKEN: undefined });
    const mcp = await sdkClient(httpTransport(server.url, {}));
    try {
      for (const withProgress of [true, false]) {
        proposeOperate(withProgress ? 3 : 4);
        const proposed = (await callChecked(checks, mcp, 'operate', { intent: 'scale web in x' }, 'anonymous propose')).data.result;
        const progress: Progress[] = [];
        const approved = await callChecked(
          checks,
          mcp,
          'operate',
          approval(proposed.sessionId, proposed.planDigest),
          `anonymous approve${withProgress ? ' (progress token)' : ''}`,
          withProgress ? progress : undefined,
        );
        expect(approved.data.result.status).to.equal('executed');
        expect(approved.data.result.execution.approval.by).to.deep.include({ kind: 'anonymous' });
        expect(approved.data.result.execution.approval.by.id).to.be.a('string');
        expect(approved.ms).to.be.below(30_000);
      }
    } finally {
      await mcp.client.close();
    }
  });

  it('a second approver (tokens file, SVC_REQUIRE_SECOND_APPROVER): the refusal and the approval both match their schemas', async () => {
    const { server, checks } = await start({ SVC_AUTH_TOKEN: undefined, SVC_AUTH_TOKENS_FILE: tokensFile, SVC_REQUIRE_SECOND_APPROVER: 'true' });
    const alice = await sdkClient(httpTransport(server.url, { Authorization: `Bearer ${PEOPLE.alice}` }));
    const bob = await sdkClient(httpTransport(server.url, { Authorization: `Bearer ${PEOPLE.bob}` }));
    try {
      chat.script({ content: 'ok' }, { content: planJson([deleteWeb], { summary: 'Delete web', risk: 'high' }) });
      const proposed = (await callChecked(checks, alice, 'operate', { intent: 'delete web in x' }, 'second approver propose')).data.result;
      const own = await callChecked(checks, alice, 'operate', approval(proposed.sessionId, proposed.planDigest), 'starter approves');
      expect(own.result.isError).to.equal(true);
      const restOwn = await rest(
        checks,
        server.url,
        { Authorization: `Bearer ${PEOPLE.alice}` },
        'operate',
        approval(proposed.sessionId, proposed.planDigest),
        'starter approves',
      );
      expect(restOwn.status).to.equal(403);
      const approved = await callChecked(checks, bob, 'operate', approval(proposed.sessionId, proposed.planDigest), 'second approver approves');
      expect(approved.result.isError, JSON.stringify(approved.data)).to.not.equal(true);
      expect(approved.data.result.execution.approval.by).to.deep.include({ username: 'bob', kind: 'tokens-file' });
      expect(approved.ms).to.be.below(30_000);
    } finally {
      await alice.client.close();
      await bob.client.close();
    }
  });

  it('with an OIDC token: the SDK client proposes and approves; approval.by carries the OIDC identity and matches its schema', async () => {
    const idp = await OidcServer.start(['RS256']);
    try {
      const { server, checks } = await start({ SVC_AUTH_TOKEN: undefined, SVC_ROLES: 'operator=sre', ...idp.env() });
      const token = await idp.token({ sub: 'carol', groups: ['sre'] });
      const mcp = await sdkClient(httpTransport(server.url, { Authorization: `Bearer ${token}` }));
      try {
        proposeOperate(3);
        const proposed = (await callChecked(checks, mcp, 'operate', { intent: 'scale web in x to 3' }, 'oidc propose')).data.result;
        const approved = await callChecked(checks, mcp, 'operate', approval(proposed.sessionId, proposed.planDigest), 'oidc approve');
        expect(approved.result.isError, JSON.stringify(approved.data)).to.not.equal(true);
        expect(approved.data.result.execution.approval.by).to.deep.include({ username: 'oidc:carol', kind: 'oidc' });
        expect(approved.ms).to.be.below(30_000);
        const r = await rest(checks, server.url, { Authorization: `Bearer ${token}` }, 'operate', { sessionId: proposed.sessionId }, 'oidc look');
        expect(r.status).to.equal(200);
      } finally {
        await mcp.client.close();
      }
    } finally {
      await idp.close();
    }
  });
});
