import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { analysisAnswer, scriptedEnv } from '../support/remediation-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

type Any = any;
const common = { description: 'the fix', risk: 'low', rationale: 'the config is missing' };
const fresh = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fresh', namespace: 'shop' }, data: { a: 'svc' } };
const FRESH_PATH = '/api/v1/namespaces/shop/configmaps/fresh';

/** Issue 30 item 9 over HTTP on the stand-in: a create is a POST whose precondition is the object's absence (the server's 409 AlreadyExists); a Pod delete is pinned to the Pod's uid. */
describe('creates are pinned, Pod deletes by uid (Kubernetes stand-in)', function () {
  this.timeout(30_000);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let dir: string;
  beforeEach(async () => {
    kube = await KubeApiServer.start();
    kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    chat = await OpenAiChatServer.start();
    dir = mkdtempSync(path.join(tmpdir(), 'svc-create-pinned-'));
  });
  afterEach(async () => {
    await kube.close();
    await chat.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const writes = () => kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All');
  const propose = async (actions: object[]) => {
    chat.script({ content: 'found it' }, { content: analysisAnswer({ actions }) });
    const { app } = buildTestApp({ ...scriptedEnv(chat, kube), SVC_DATA_DIR: dir });
    const view: Any = (await request(app).post('/api/v1/tools/remediate').set(auth).send({ issue: 'fresh in shop is missing' }).expect(200)).body.data.result;
    const execute = async () =>
      (await request(app).post('/api/v1/tools/remediate').set(auth).send({ sessionId: view.sessionId, executeChoice: 1 }).expect(200)).body.data.result;
    const entry = async (id: string) => (await request(app).get(`/api/v1/changes/${id}`).set(auth).expect(200)).body.data;
    return { view, execute, entry };
  };

  it('an absent object is previewed with a dry-run POST and created with a POST; the ledger records method create', async () => {
    const { view, execute, entry } = await propose([{ type: 'apply', manifest: fresh, ...common }]);
    expect(view.actions[0]).to.deep.include({ effect: 'create', dryRun: { accepted: true } });
    const dry = kube.requests.filter((r) => r.method === 'POST' && r.query.get('dryRun') === 'All');
    expect(dry.map((r) => r.path)).to.deep.equal(['/api/v1/namespaces/shop/configmaps']);
    const done: Any = await execute();
    expect(done.execution.outcome.report.outcomes[0]).to.deep.include({ status: 'applied' });
    expect(writes().map((r) => `${r.method} ${r.path}`)).to.deep.equal(['POST /api/v1/namespaces/shop/configmaps']);
    expect(JSON.parse(writes()[0].body!).metadata).to.not.have.property('resourceVersion');
    expect(kube.objects.get(FRESH_PATH)!.data).to.deep.equal({ a: 'svc' });
    const recorded = await entry(done.execution.outcome.report.outcomes[0].ledgerId);
    expect(recorded.change.method).to.equal('create');
    expect(recorded.change.body).to.deep.equal(JSON.parse(writes()[0].body!));
  });

  it('an object that appears after svc last looked (as the POST arrives) is not overwritten: the API server answers 409 AlreadyExists and the answer says so', async () => {
    const { view, execute, entry } = await propose([{ type: 'apply', manifest: fresh, ...common }]);
    expect(view.actions[0].effect).to.equal('create');
    // someone else creates it between svc's checks and its write
    kube.intercept = (r) => {
      if (r.method === 'POST' && r.query.get('dryRun') !== 'All') kube.put({ ...fresh, data: { a: 'someone else' } });
      return undefined;
    };
    const done: Any = await execute();
    const outcome = done.execution.outcome.report.outcomes[0];
    expect(outcome.status).to.equal('failed');
    expect(outcome.message).to.match(/already exists/);
    expect(writes().map((r) => r.method)).to.deep.equal(['POST']);
    expect(kube.objects.get(FRESH_PATH)!.data).to.deep.equal({ a: 'someone else' });
    const recorded = await entry(outcome.ledgerId);
    expect(recorded.change.method).to.equal('create');
    expect(recorded.outcome).to.deep.include({ status: 'refused', reason: 'AlreadyExists' });
  });

  it('an object that appeared before execution fails the execute-time dry run: nothing is written', async () => {
    const { execute } = await propose([{ type: 'apply', manifest: fresh, ...common }]);
    // it appears after the execute-time read of svc's check, before the dry run
    let reads = 0;
    kube.intercept = (r) => {
      if (r.method === 'GET' && r.path === FRESH_PATH && ++reads === 1) return undefined;
      if (r.method === 'POST' && r.query.get('dryRun') === 'All') kube.put({ ...fresh, data: { a: 'someone else' } });
      return undefined;
    };
    const done: Any = await execute();
    expect(done.status).to.equal('not_executed');
    expect(done.execution.outcome.report.refused).to.deep.include({ reason: 'AlreadyExists' });
    expect(writes()).to.deep.equal([]);
    expect(kube.objects.get(FRESH_PATH)!.data).to.deep.equal({ a: 'someone else' });
  });

  it('a Pod delete is pinned to the uid it was previewed with: a Pod re-created under the name since is not deleted', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'shop' }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } };
    kube.put(structuredClone(pod));
    const { view, execute } = await propose([
      { type: 'delete', target: { apiVersion: 'v1', kind: 'Pod', name: 'web-0', namespace: 'shop' }, ...common, risk: 'medium' },
    ]);
    const uid = view.actions[0].uid;
    expect(uid).to.be.a('string').and.equal(kube.objects.get('/api/v1/namespaces/shop/pods/web-0')!.metadata.uid);
    kube.put(structuredClone(pod)); // a StatefulSet would re-create it so: same name, new uid
    const replaced = kube.objects.get('/api/v1/namespaces/shop/pods/web-0')!.metadata.uid;
    const done: Any = await execute();
    expect(done.status).to.equal('not_executed');
    expect(done.execution.outcome.report.refused).to.deep.include({ reason: 'Conflict' });
    expect(done.execution.outcome.report.refused.message).to.contain('UID in precondition');
    expect(writes()).to.deep.equal([]);
    expect(kube.objects.get('/api/v1/namespaces/shop/pods/web-0')!.metadata.uid).to.equal(replaced);
  });
});
