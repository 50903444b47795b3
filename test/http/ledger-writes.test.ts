import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import type { ChangeEntry } from '../../domain/ledger/change-entry.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { ENTRY_FIELDS } from '../support/ledger-records.js';
import { OpenAiChatServer, type ChatReply } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

type Json = Record<string, any>;
const WEB = '/apis/apps/v1/namespaces/x/deployments/web';
const getWeb: ChatReply = {
  toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
};

describe('the change ledger records every write of the tools, and reverts them (real app, Kubernetes stand-in)', () => {
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let env: Record<string, string>;

  before(async () => {
    chat = await OpenAiChatServer.start();
  });
  after(() => chat.close());
  beforeEach(async () => {
    kube = await KubeApiServer.start();
    kube.create(webManifest(2));
    kube.settle();
    env = {
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
      SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-ledger-http-')),
    };
  });
  afterEach(() => kube.close());

  const changes = async (app: Express, query: Record<string, string> = {}): Promise<ChangeEntry[]> =>
    (await request(app).get('/api/v1/changes').query(query).set(auth).expect(200)).body.data.changes;
  const scaleTo = async (app: Express, replicas: number) => {
    chat.script(getWeb, { content: 'web runs 2 replicas' }, { content: planJson([scaleWeb(replicas)]) });
    const start = await request(app)
      .post('/api/v1/tools/operate')
      .set(auth)
      .send({ intent: `scale web in x to ${replicas}` })
      .expect(200);
    return (await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId: start.body.data.result.sessionId, executeChoice: 1 }).expect(200)).body
      .data.result;
  };

  it('operate: one entry per write with every field, named in the answer and on the tool span; revert puts it back, twice is 409', async () => {
    const tracer = new RecordingTracer();
    const { app } = buildTestApp(env, { tracer });
    const result = await scaleTo(app, 5);
    const id = result.execution.outcome.actions[0].ledgerId;
    // seq 1 is the write's intent, appended before the write was sent; the change closes it
    expect(id).to.match(/^chg_2_[0-9a-f]{8}$/);
    const [entry, ...others] = await changes(app);
    expect(others, 'a closed intent is not listed').to.deep.equal([]);
    expect(entry).to.have.all.keys(...ENTRY_FIELDS);
    expect(entry.intentId).to.match(/^chg_1_[0-9a-f]{8}$/);
    const intent = (await request(app).get(`/api/v1/changes/${entry.intentId}`).set(auth).expect(200)).body.data;
    expect(intent).to.deep.include({
      type: 'intent',
      caller: entry.caller,
      tool: 'operate',
      sessionId: result.sessionId,
      target: entry.target,
      before: entry.before,
      dryRun: entry.dryRun,
      change: entry.change,
      outcome: { status: 'pending' },
      inverse: null,
    });
    expect(intent.requestId).to.be.a('string');
    expect(entry.prevHash).to.equal(intent.hash);
    // the intent is not a change: its revert names the entry that is
    const refused = await request(app).post(`/api/v1/changes/${intent.id}/revert`).set(auth).send({}).expect(409);
    expect(refused.body.error.message).to.include(`revert ${id}`);
    expect(entry).to.deep.include({
      id,
      type: 'change',
      caller: { id: 'static:svc:admin', username: 'admin', roles: ['viewer', 'operator', 'admin'] },
      tool: 'operate',
      sessionId: result.sessionId,
      request: 'scale web in x to 5',
      approval: { mode: 'manual', by: 'admin' },
      target: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' },
      outcome: { status: 'applied' },
      inverse: { method: 'patch', patchType: 'merge', body: { spec: { replicas: 2 } } },
    });
    expect(entry.before).to.deep.include({ resourceVersion: kube.objects.get(WEB) && entry.before!.resourceVersion });
    // the change as sent: pinned to the version the caller approved, which is the version before
    expect(entry.change).to.deep.equal({
      method: 'patch',
      patchType: 'merge',
      body: { spec: { replicas: 5 }, metadata: { resourceVersion: entry.before!.resourceVersion } },
    });
    expect((entry.before!.spec as Json).replicas).to.equal(2);
    expect(entry.dryRun).to.deep.equal({ accepted: true, diff: [{ path: 'spec.replicas', from: 2, to: 5 }] });
    expect(entry.resourceVersionAfter).to.be.a('string');
    const toolSpan = tracer.spans.find((s) => s.name === 'execute_tool operate' && s.attributes['svc.ledger.ids']);
    expect(toolSpan!.attributes['svc.ledger.ids']).to.deep.equal([id]);
    expect(tracer.spans.some((s) => s.name === 'ledger append' && s.parent === toolSpan)).to.equal(true);

    kube.settle();
    // the controllers moved status only: the object is as the change left it
    const revert = await request(app).post(`/api/v1/changes/${id}/revert`).set(auth).send({}).expect(200);
    expect(revert.body.data.original.id).to.equal(id);
    expect(revert.body.data.revert).to.deep.include({ type: 'revert', tool: 'revert', revertOf: id, outcome: { status: 'applied' } });
    expect(kube.objects.get(WEB)!.spec.replicas).to.equal(2);
    const again = await request(app).post(`/api/v1/changes/${id}/revert`).set(auth).send({}).expect(409);
    expect(again.body.error.code).to.equal('CONFLICT');
    expect(again.body.error.message).to.include('already reverted');
    // two writes, each an intent and its outcome; none left open
    const integrity = (await request(app).get('/api/v1/changes/integrity').set(auth).expect(200)).body.data;
    expect(integrity).to.deep.include({ ok: true, entries: 4 });
    expect(integrity).to.not.have.property('openIntents');
  });

  it('revert refuses an object changed since (409 with the diff), and force reverts the recorded fields, dry-run first', async () => {
    const { app } = buildTestApp(env);
    const result = await scaleTo(app, 4);
    const id = result.execution.outcome.actions[0].ledgerId;
    const live = kube.objects.get(WEB)!;
    kube.put({ ...live, metadata: { ...live.metadata, labels: { ...live.metadata.labels, tier: 'front' } } });
    const refused = await request(app).post(`/api/v1/changes/${id}/revert`).set(auth).send({}).expect(409);
    expect(refused.body.error.code).to.equal('CONFLICT');
    expect(refused.body.error.message).to.match(/changed since .*force: true/);
    expect(refused.body.error.details.diff).to.deep.include({ path: 'metadata.labels.tier', to: 'front' });
    expect(kube.objects.get(WEB)!.spec.replicas).to.equal(4);
    const before = kube.requests.length;
    await request(app).post(`/api/v1/changes/${id}/revert`).set(auth).send({ force: true }).expect(200);
    const sent = kube.requests.slice(before).filter((r) => r.method === 'PATCH');
    expect(sent.map((r) => r.query.get('dryRun'))).to.deep.equal(['All', null]);
    expect(kube.objects.get(WEB)!.spec.replicas).to.equal(2);
    expect(kube.objects.get(WEB)!.metadata.labels.tier).to.equal('front');
  });

  it('revert of a created object deletes it, and revert of a deletion re-creates it from the recorded state (over HTTP, on the stand-in)', async () => {
    const { app } = buildTestApp(env);
    const CM = '/api/v1/namespaces/x/configmaps/settings';
    const settings = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'x', labels: { app: 'web' } }, data: { mode: 'fast' } };
    const target = { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', namespace: 'x' };
    const run = async (action: Json, intent: string) => {
      chat.script({ content: 'ok' }, { content: planJson([{ ...action, risk: 'low', rationale: 'the intent asks for it' }]) });
      const start = await request(app).post('/api/v1/tools/operate').set(auth).send({ intent }).expect(200);
      const done = await request(app)
        .post('/api/v1/tools/operate')
        .set(auth)
        .send({ sessionId: start.body.data.result.sessionId, executeChoice: 1 })
        .expect(200);
      return done.body.data.result.execution.outcome.actions[0].ledgerId as string;
    };
    const revert = async (id: string) => (await request(app).post(`/api/v1/changes/${id}/revert`).set(auth).send({}).expect(200)).body.data.revert;

    const created = await run({ type: 'apply', manifest: settings, description: 'Create settings' }, 'create the settings ConfigMap in x');
    const createdEntry = (await request(app).get(`/api/v1/changes/${created}`).set(auth).expect(200)).body.data;
    expect(createdEntry).to.deep.include({ before: null, inverse: { method: 'delete' } });
    expect(kube.objects.get(CM)!.data).to.deep.equal({ mode: 'fast' });
    const undoCreate = await revert(created);
    expect(kube.objects.has(CM)).to.equal(false);
    expect(undoCreate.change.method).to.equal('delete');
    expect(kube.requests.filter((r) => r.method === 'DELETE').map((r) => r.query.get('dryRun'))).to.deep.equal(['All', null]);

    kube.create(settings);
    const deleted = await run({ type: 'delete', target, description: 'Delete settings' }, 'delete the settings ConfigMap in x');
    expect(kube.objects.has(CM)).to.equal(false);
    const deletedEntry = (await request(app).get(`/api/v1/changes/${deleted}`).set(auth).expect(200)).body.data;
    expect(deletedEntry.after).to.equal(null);
    expect(deletedEntry.inverse).to.deep.include({ method: 'create' });
    const undoDelete = await revert(deleted);
    expect(undoDelete).to.deep.include({ revertOf: deleted, before: null, outcome: { status: 'applied' } });
    const back = kube.objects.get(CM)!;
    expect([back.data, back.metadata.labels]).to.deep.equal([{ mode: 'fast' }, { app: 'web' }]);
    // undone once: a second undo is refused, forced or not
    const again = await request(app).post(`/api/v1/changes/${deleted}/revert`).set(auth).send({ force: true }).expect(409);
    expect(again.body.error.message).to.match(/already reverted/);
    // four writes, each an intent and its outcome
    expect((await request(app).get('/api/v1/changes/integrity').set(auth).expect(200)).body.data).to.deep.include({ ok: true, entries: 8 });
  });

  it('a write the API server refuses leaves an entry with the refusal, named in the answer', async () => {
    const { app } = buildTestApp(env);
    kube.intercept = (r) =>
      r.method === 'PATCH' && r.query.get('dryRun') !== 'All'
        ? {
            status: 422,
            body: {
              kind: 'Status',
              apiVersion: 'v1',
              status: 'Failure',
              reason: 'Invalid',
              code: 422,
              message: 'Deployment.apps "web" is invalid: spec.replicas: quota exceeded',
            },
          }
        : undefined;
    const result = await scaleTo(app, 9);
    const action = result.execution.outcome.actions[0];
    expect(action.status).to.equal('failed');
    const entry = (await request(app).get(`/api/v1/changes/${action.ledgerId}`).set(auth).expect(200)).body.data;
    expect(entry.outcome).to.deep.include({ status: 'refused', reason: 'Invalid' });
    expect(entry.outcome.message).to.include('quota exceeded');
    expect(entry.inverse).to.equal(null);
    expect((await changes(app, { outcome: 'refused' })).map((e) => e.id)).to.deep.equal([action.ledgerId]);
  });
});
