import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { planJson } from '../support/operate-fixtures.js';
import { analysisAnswer, callFn, scriptedEnv } from '../support/remediation-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

type Any = any;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const PASSWORD = `db-pass-${Math.random().toString(36).slice(2, 12)}`;
const spellings = [PASSWORD, b64(PASSWORD), Buffer.from(PASSWORD).toString('base64url'), encodeURIComponent(PASSWORD)];

/** Every file under `dir`, as text. */
function filesUnder(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    out += statSync(p).isDirectory() ? filesUnder(p) : `\n${readFileSync(p, 'utf8')}`;
  }
  return out;
}

/**
 * Issue 30 item 4 over HTTP: a scripted (manipulated) model reads a Secret
 * and echoes its value in a patch, an annotation, its words and its final
 * answer. The value svc read shows nowhere: not in either answer, the
 * stored session files, the ledger, or anything the model was sent.
 */
describe('Secret values svc read are scrubbed by value everywhere (Kubernetes stand-in, scripted model)', function () {
  this.timeout(30_000);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let dir: string;
  beforeEach(async () => {
    kube = await KubeApiServer.start();
    kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    kube.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, type: 'Opaque', data: { password: b64(PASSWORD) } });
    kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'shop' }, data: { a: '1' } });
    chat = await OpenAiChatServer.start();
    dir = mkdtempSync(path.join(tmpdir(), 'svc-secret-values-'));
  });
  afterEach(async () => {
    await kube.close();
    await chat.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const leaks = (text: string) => spellings.filter((s) => text.includes(s));

  it('remediate: the answer, the stored session, the ledger and the model requests never carry the value, at proposal and after execution', async () => {
    const echo = `the password is ${PASSWORD} (${b64(PASSWORD)})`;
    const action = {
      type: 'patch',
      target: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'shop' },
      patch: { metadata: { annotations: { leak: PASSWORD, leak64: b64(PASSWORD) } }, data: { password: PASSWORD } },
      description: `write ${PASSWORD} where everyone reads it`,
      rationale: echo,
      risk: 'low',
    };
    chat.script(
      callFn('get_resource', { apiVersion: 'v1', kind: 'Secret', name: 'db', namespace: 'shop' }),
      { content: echo },
      { content: analysisAnswer({ rootCause: echo, evidence: [echo], actions: [action] }) },
      { content: JSON.stringify({ resolved: true, summary: echo }) },
      { content: JSON.stringify({ resolved: true, summary: echo }) },
    );
    const { app } = buildTestApp({ ...scriptedEnv(chat, kube), SVC_DATA_DIR: dir });
    const first = await request(app).post('/api/v1/tools/remediate').set(auth).send({ issue: 'the app in namespace shop cannot log in to db' }).expect(200);
    const view: Any = first.body.data.result;
    expect(view.actions[0].dryRun).to.deep.include({ accepted: true });
    expect(view.actions[0].description).to.contain('***');
    expect(leaks(first.text), 'the proposal').to.deep.equal([]);
    expect(leaks(filesUnder(dir)), 'stored session (proposal)').to.deep.equal([]);
    // a later step (a new request, a new scope) re-reads the Secret the session names, and scrubs again
    const look = await request(app).post('/api/v1/tools/remediate').set(auth).send({ sessionId: view.sessionId }).expect(200);
    expect(leaks(look.text), 'the session looked at again').to.deep.equal([]);
    const done = await request(app).post('/api/v1/tools/remediate').set(auth).send({ sessionId: view.sessionId, executeChoice: 1 }).expect(200);
    expect(done.body.data.result.execution.outcome.report.outcomes[0].status).to.equal('applied');
    expect(leaks(done.text), 'the execution answer').to.deep.equal([]);
    const ledgerId = done.body.data.result.execution.outcome.report.outcomes[0].ledgerId;
    const entry = await request(app).get(`/api/v1/changes/${ledgerId}`).set(auth).expect(200);
    expect(entry.body.data.change.method).to.equal('patch');
    expect(leaks(entry.text), 'the ledger entry').to.deep.equal([]);
    expect(leaks(filesUnder(dir)), 'stored session and ledger files').to.deep.equal([]);
    expect(chat.requests.length).to.be.greaterThan(2);
    expect(leaks(JSON.stringify(chat.requests)), 'what the model was sent').to.deep.equal([]);
    // the value never reached a readable field of the cluster either: what was written is ***
    expect(kube.objects.get('/api/v1/namespaces/shop/configmaps/cfg')!.metadata.annotations).to.deep.equal({ leak: '***', leak64: '***' });
  });

  it('a viewer reads a remediate session through the tool exactly as through GET /api/v1/sessions/{id}: 403 both ways; the owner reads it', async () => {
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const [alice, vera] = ['alice-token-0123456789', 'vera-token-0123456789'];
    const tokens = path.join(dir, 'tokens');
    writeFileSync(tokens, `alice operator ${sha(alice)}\nvera viewer ${sha(vera)}\n`);
    const action = { type: 'patch', target: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'shop' }, patch: { data: { a: '2' } } };
    chat.script({ content: 'cfg is wrong' }, { content: analysisAnswer({ actions: [{ ...action, description: 'd', rationale: 'r', risk: 'low' }] }) });
    const { app } = buildTestApp({
      ...scriptedEnv(chat, kube),
      SVC_DATA_DIR: dir,
      SVC_AUTH_TOKEN: undefined as unknown as string,
      SVC_AUTH_TOKENS_FILE: tokens,
    });
    const as = (t: string) => ({ Authorization: `Bearer ${t}` });
    const { sessionId } = (await request(app).post('/api/v1/tools/remediate').set(as(alice)).send({ issue: 'cfg in shop is wrong' }).expect(200)).body.data
      .result;
    const look = await request(app).post('/api/v1/tools/remediate').set(as(vera)).send({ sessionId }).expect(403);
    expect(look.body.error.message).to.contain('only they or an admin may read it');
    await request(app).get(`/api/v1/sessions/${sessionId}`).set(as(vera)).expect(403);
    expect((await request(app).post('/api/v1/tools/remediate').set(as(alice)).send({ sessionId }).expect(200)).body.data.result.sessionId).to.equal(sessionId);
    await request(app).get(`/api/v1/sessions/${sessionId}`).set(as(alice)).expect(200);
  });

  it('operate: a new value written into a Secret is *** in every answer and model request; the session keeps it so the write can run', async () => {
    const NEW = `new-pass-${Math.random().toString(36).slice(2, 12)}`;
    const rotate = {
      type: 'patch',
      target: { apiVersion: 'v1', kind: 'Secret', name: 'db', namespace: 'shop' },
      patch: { stringData: { password: NEW } },
      description: 'Rotate the db password',
      rationale: `the new one is ${NEW}`,
      risk: 'high',
    };
    chat.script({ content: 'db holds the password' }, { content: planJson([rotate]) });
    const { app } = buildTestApp({ ...scriptedEnv(chat, kube), SVC_DATA_DIR: dir });
    const plan = await request(app).post('/api/v1/tools/operate').set(auth).send({ intent: 'rotate the db password in namespace shop' }).expect(200);
    const { sessionId } = plan.body.data.result;
    const news = (text: string) => [NEW, b64(NEW)].filter((v) => text.includes(v)).length;
    expect(news(plan.text), 'the plan').to.equal(0);
    expect(news((await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId }).expect(200)).text), 'a later look').to.equal(0);
    const ran = await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId, executeChoice: 1 }).expect(200);
    expect(news(ran.text), 'the execution').to.equal(0);
    // the Secret did change in the cluster: the value was real
    expect(news(JSON.stringify(kube.objects.get('/api/v1/namespaces/shop/secrets/db')))).to.be.greaterThan(0);
    expect(news(JSON.stringify(chat.requests)), 'what the model was sent').to.equal(0);
    expect(leaks(ran.text + plan.text + JSON.stringify(chat.requests)), 'the old value').to.deep.equal([]);
  });
});
