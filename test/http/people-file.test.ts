import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { OpenAiChatServer, type ChatReply } from '../support/openai-chat-server.js';
import { OidcServer } from '../support/oidc-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ALICE_TOKEN = 'alice-ci-token-0123456789abcdef';
const BOB_TOKEN = 'bob-ci-token-0123456789abcdef';
const getWeb: ChatReply = {
  toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
};

/**
 * Issue 42's attack on the real app: with SVC_OIDC_USERNAME_CLAIM=email (the
 * Dex example) and a tokens file for CI, alice starts a high-risk operation
 * with her tokens-file token and approves it with her OIDC login. With
 * SVC_PEOPLE_FILE naming both as alice, the approval is 403 and nothing is
 * written; her OIDC login continues her session and reverts her change.
 */
describe('SVC_PEOPLE_FILE on the real app: one person, a tokens-file token and an OIDC login', function () {
  this.timeout(60000);
  let dir: string;
  let idp: OidcServer;
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let apps: TestApp[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-people-http-'));
    writeFileSync(path.join(dir, 'tokens'), `alice operator ${sha(ALICE_TOKEN)}\nbob operator ${sha(BOB_TOKEN)}\n`);
    writeFileSync(path.join(dir, 'people.yaml'), 'people:\n  - name: alice\n    tokens: [alice]\n    emails: [alice@example.com]\n');
    [idp, kube, chat] = await Promise.all([OidcServer.start(['RS256']), KubeApiServer.start(), OpenAiChatServer.start()]);
    kube.create(webManifest(2));
    kube.settle();
  });
  afterEach(async () => {
    for (const t of apps) for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    apps = [];
    await Promise.all([idp.close(), kube.close(), chat.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  function app(extra: Record<string, string | undefined>): Express {
    const t = buildTestApp({
      SVC_AUTH_TOKEN: undefined,
      SVC_AUTH_TOKENS_FILE: path.join(dir, 'tokens'),
      SVC_ROLES: 'operator=sre',
      ...idp.env({ SVC_OIDC_USERNAME_CLAIM: 'email' }),
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
      SVC_DATA_DIR: dir,
      ...extra,
    });
    apps.push(t);
    return t.app;
  }
  const oidcAlice = () => idp.token({ sub: 'dex-alice', email: 'alice@example.com', email_verified: true, groups: ['sre'] });
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const patches = () => kube.requests.filter((r) => r.method === 'PATCH' && r.query.get('dryRun') !== 'All');
  const propose = async (a: Express, risk?: 'high') => {
    chat.script(getWeb, { content: 'web runs 2 replicas' }, { content: planJson([{ ...scaleWeb(4), ...(risk ? { risk } : {}) }]) });
    return (await request(a).post('/api/v1/tools/operate').set(bearer(ALICE_TOKEN)).send({ intent: 'scale web in namespace x to 4 replicas' }).expect(200)).body
      .data.result as { sessionId: string; planDigest: string };
  };

  it('started with the tokens-file token, approved with the OIDC login: 403, nothing written; without the people file it executes', async () => {
    const guarded = app({ SVC_REQUIRE_SECOND_APPROVER: 'true', SVC_PEOPLE_FILE: path.join(dir, 'people.yaml') });
    const { sessionId, planDigest } = await propose(guarded, 'high');
    const refused = await request(guarded)
      .post('/api/v1/tools/operate')
      .set(bearer(await oidcAlice()))
      .send({ sessionId, executeChoice: 1, planDigest })
      .expect(403);
    expect(refused.body.error.message).to.equal(
      `Session ${sessionId} needs a second approver: it includes a high-risk action, and it was started by alice (tokens-file); another operator must send executeChoice 1`,
    );
    expect(patches()).to.have.length(0);
    // another person approves
    const done = await request(guarded).post('/api/v1/tools/operate').set(bearer(BOB_TOKEN)).send({ sessionId, executeChoice: 1, planDigest }).expect(200);
    expect(done.body.data.result.status).to.equal('executed');
    expect(patches()).to.have.length(1);

    // what the issue found, and docs/identity.md warns of: without the file, the two credentials are two people
    const open = app({ SVC_REQUIRE_SECOND_APPROVER: 'true' });
    const second = await propose(open, 'high');
    const approved = await request(open)
      .post('/api/v1/tools/operate')
      .set(bearer(await oidcAlice()))
      .send({ sessionId: second.sessionId, executeChoice: 1, planDigest: second.planDigest })
      .expect(200);
    expect(approved.body.data.result.status).to.equal('executed');
  });

  it('her OIDC login continues the session her token started, and reverts the change it recorded; another OIDC caller may do neither', async () => {
    const a = app({ SVC_PEOPLE_FILE: path.join(dir, 'people.yaml') });
    const { sessionId } = await propose(a);
    const stranger = await idp.token({ sub: 'dex-mallory', email: 'mallory@example.com', email_verified: true, groups: ['sre'] });
    const notTheirs = await request(a).post('/api/v1/tools/operate').set(bearer(stranger)).send({ sessionId, executeChoice: 1 }).expect(403);
    expect(notTheirs.body.error.message).to.match(/was started by alice \(tokens-file\); only they or an admin may continue it/);
    const done = (
      await request(a)
        .post('/api/v1/tools/operate')
        .set(bearer(await oidcAlice()))
        .send({ sessionId, executeChoice: 1 })
        .expect(200)
    ).body.data.result;
    expect(done.status).to.equal('executed');
    expect(done.execution.approval.by).to.deep.include({ username: 'oidc:alice@example.com', person: 'alice' });
    const [change] = (await request(a).get('/api/v1/changes').set(bearer(ALICE_TOKEN)).expect(200)).body.data.changes;
    expect(change.caller).to.deep.include({ username: 'oidc:alice@example.com', person: 'alice' });
    await request(a).post(`/api/v1/changes/${change.id}/revert`).set(bearer(stranger)).send({}).expect(403);
    const reverted = await request(a).post(`/api/v1/changes/${change.id}/revert`).set(bearer(ALICE_TOKEN)).send({}).expect(200);
    expect(reverted.body.data.revert).to.include({ revertOf: change.id });
    expect(reverted.body.data.revert.caller).to.deep.include({ username: 'alice', person: 'alice' });
  });
});
