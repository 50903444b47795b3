import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { canonicalJson } from '../../domain/ledger/canonical-json.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { ENTRY_FIELDS } from '../support/ledger-records.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { webManifest } from '../support/operate-fixtures.js';
import { RecordingTracer, type RecordedSpan } from '../support/recording-tracer.js';
import { analysisAnswer, callFn, containerPatch, scriptedEnv, verifiedAnswer, webDeployment } from '../support/remediation-fixtures.js';
import { auth, buildTestApp } from '../support/test-app.js';

type Json = Record<string, any>;
const WEB_PATH = '/apis/apps/v1/namespaces/x/deployments/web';
const CONTENT_TYPES: Record<string, string> = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};
// the longest issue remediate takes (2,000 characters): the entry keeps it whole; a longer one is refused before anything is read or written
const ISSUE = `web in namespace x never becomes ready. ${'Pod web: Back-off pulling image "nginx:9.9-missing". '.repeat(50)}`.slice(0, 1999) + '!';

/**
 * remediate, manual and automatic, over HTTP on the Kubernetes stand-in: one
 * ledger entry per write, with every field of the issue's item 1, and the
 * change it records is the change that reached the API server.
 */
describe('the ledger records remediate’s writes as they reached the API server (manual and automatic)', function () {
  this.timeout(30_000);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let dir: string;
  let app: Express;
  let tracer: RecordingTracer;

  before(async () => {
    chat = await OpenAiChatServer.start();
  });
  after(() => chat.close());
  beforeEach(async () => {
    kube = await KubeApiServer.start();
    const web = webDeployment('nginx:9.9-missing') as Json;
    web.metadata.annotations = { team: 'shop' };
    // the server's defaults spelled out (the stand-in's create() applies none, its dry runs do)
    Object.assign(web.spec, { revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: (webManifest() as Json).spec.strategy });
    kube.create(web);
    kube.settle();
    dir = mkdtempSync(path.join(tmpdir(), 'svc-ledger-remediate-'));
    tracer = new RecordingTracer();
    app = buildTestApp({ ...scriptedEnv(chat, kube), SVC_DATA_DIR: dir }, { tracer }).app;
  });
  afterEach(async () => {
    await kube.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (body: Json) => request(app).post('/api/v1/tools/remediate').set(auth).send(body).expect(200);
  const script = () =>
    chat.script(
      // the investigation reads namespace x (automatic mode writes only where it looked)
      callFn('list_resources', { apiVersion: 'v1', kind: 'Pod', namespace: 'x' }),
      { content: 'the tag does not exist' },
      { content: analysisAnswer() },
      callFn('list_resources', { apiVersion: 'v1', kind: 'Pod', namespace: 'x' }),
      {
        content: verifiedAnswer(),
      },
    );
  const persisted = () => kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All');

  /** The one entry of a run, checked against what the stand-in received and held before. */
  async function checkEntry(result: Json, before: Json, approval: Json): Promise<Json> {
    const outcomes = result.execution.outcome.report.outcomes;
    expect(outcomes).to.have.length(1);
    const id = outcomes[0].ledgerId;
    const list = (await request(app).get('/api/v1/changes').set(auth).expect(200)).body.data.changes;
    expect(list.map((e: Json) => e.id)).to.deep.equal([id]);
    const entry = (await request(app).get(`/api/v1/changes/${id}`).set(auth).expect(200)).body.data;
    expect(entry).to.have.all.keys(...ENTRY_FIELDS);
    expect(entry).to.deep.include({
      type: 'change',
      caller: { id: 'static:svc:admin', username: 'admin', roles: ['viewer', 'operator', 'admin'] },
      tool: 'remediate',
      sessionId: result.sessionId,
      request: ISSUE,
      rationale: containerPatch('nginx:1.27').rationale,
      // svc's assessed risk (an image change replaces pods), never the model's label ('low')
      risk: 'medium',
      approval,
      target: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' },
      outcome: { status: 'applied' },
    });
    expect(Date.parse(entry.at)).to.be.within(Date.now() - 30_000, Date.now());
    // the state before: spec, labels, annotations, resourceVersion of the object as the stand-in held it
    expect(entry.before).to.deep.equal({
      spec: before.spec,
      labels: before.metadata.labels,
      annotations: before.metadata.annotations,
      resourceVersion: before.metadata.resourceVersion,
    });
    // what the caller saw (the proposal's dry run and diff) is what the entry records
    const proposed = result.actions[0];
    expect(proposed.dryRun.accepted).to.equal(true);
    expect(entry.dryRun).to.deep.equal({ accepted: true, diff: proposed.diff });
    expect(entry.dryRun.diff).to.deep.include({ path: 'spec.template.spec.containers[name=app].image', from: 'nginx:9.9-missing', to: 'nginx:1.27' });
    // the exact change: one write reached the API server, and it is the recorded one, to the byte once keys are ordered alike
    const [sent] = persisted();
    expect(persisted()).to.have.length(1);
    expect(sent.method).to.equal('PATCH');
    expect(sent.path).to.equal(WEB_PATH);
    expect(entry.change.method).to.equal('patch');
    expect(sent.contentType).to.equal(CONTENT_TYPES[entry.change.patchType]);
    expect(entry.change.patchType).to.equal('strategic');
    expect(sent.body).to.equal(JSON.stringify(JSON.parse(sent.body!)));
    expect(canonicalJson(JSON.parse(sent.body!))).to.equal(canonicalJson(entry.change.body));
    // after: the spec the server stored, and its resourceVersion, later than before and no later than now
    const now = kube.objects.get(WEB_PATH)!;
    expect(entry.after.spec).to.deep.equal(now.spec);
    expect(Number(entry.resourceVersionAfter)).to.be.greaterThan(Number(before.metadata.resourceVersion)).and.at.most(Number(now.metadata.resourceVersion));
    expect(entry.after.resourceVersion).to.equal(entry.resourceVersionAfter);
    expect(entry.inverse).to.deep.equal({
      method: 'patch',
      patchType: 'merge',
      body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:9.9-missing' }] } } } },
    });
    // the write's intent, then its outcome
    expect((await request(app).get('/api/v1/changes/integrity').set(auth).expect(200)).body.data).to.deep.include({ ok: true, entries: 2 });
    // traced: the tool span that wrote carries the id, and the append is a span under it
    const tool = tracer.spans.filter((sp) => sp.name === 'execute_tool remediate' && sp.attributes['svc.ledger.ids']);
    expect(tool.map((sp) => sp.attributes['svc.ledger.ids'])).to.deep.equal([[id]]);
    const appends = tracer.spans.filter((sp) => sp.name === 'ledger append');
    expect(appends.map((sp) => [sp.parent, sp.attributes['svc.ledger.id']])).to.deep.equal([
      [tool[0], entry.intentId],
      [tool[0], id],
    ]);
    return entry;
  }

  const under = (parent: RecordedSpan) => tracer.spans.filter((sp) => sp.parent === parent).map((sp) => sp.name);

  it('manual: the entry says who approved, and records the proposal the caller saw and the patch that was sent', async () => {
    expect(ISSUE).to.have.length(2000);
    const asked = chat.requests.length;
    const tooLong = await request(app)
      .post('/api/v1/tools/remediate')
      .set(auth)
      .send({ issue: `${ISSUE}!` })
      .expect(400);
    expect(tooLong.body.error.code).to.equal('VALIDATION_ERROR');
    expect(chat.requests.length).to.equal(asked);
    expect(kube.requests.filter((r) => r.method !== 'GET')).to.deep.equal([]);
    script();
    const proposal = (await post({ issue: ISSUE })).body.data.result;
    expect(proposal.status).to.equal('awaiting_approval');
    expect(persisted()).to.deep.equal([]);
    const before = structuredClone(kube.objects.get(WEB_PATH)!);
    const result = (await post({ sessionId: proposal.sessionId, executeChoice: 1 })).body.data.result;
    expect(result.status).to.equal('executed');
    const entry = await checkEntry({ ...result, actions: proposal.actions }, before, { mode: 'manual', by: 'admin' });

    // the undo reads the ledger and appends to it under its own span, which names the entry it made
    kube.settle();
    const revert = (await request(app).post(`/api/v1/changes/${entry.id}/revert`).set(auth).send({}).expect(200)).body.data.revert;
    const span = tracer.spans.find((sp) => sp.name === 'ledger revert')!;
    expect(span.attributes).to.deep.include({ 'svc.ledger.revert_of': entry.id, 'svc.ledger.ids': [revert.id], 'enduser.id': 'admin' });
    const children = under(span);
    // the undo's intent is appended before its write, its outcome after
    expect(children.filter((n) => n.startsWith('ledger '))).to.deep.equal(['ledger get', 'ledger list', 'ledger append', 'ledger append', 'ledger get']);
    expect(tracer.spans.find((sp) => sp.name === 'ledger append' && sp.attributes['svc.ledger.id'] === revert.id)!.parent).to.equal(span);
    expect(kube.objects.get(WEB_PATH)!.spec.template.spec.containers[0].image).to.equal('nginx:9.9-missing');
    // the undo it records is the undo that was sent, pinned to the version it read
    const undo = persisted().at(-1)!;
    expect(persisted()).to.have.length(2);
    expect([undo.method, undo.contentType]).to.deep.equal(['PATCH', CONTENT_TYPES[revert.change.patchType]]);
    expect(canonicalJson(JSON.parse(undo.body!))).to.equal(canonicalJson(revert.change.body));
    expect(revert.change.body.metadata.resourceVersion).to.be.a('string');
  });

  it('automatic: the entry names the rule that allowed the write', async () => {
    script();
    const before = structuredClone(kube.objects.get(WEB_PATH)!);
    const result = (await post({ issue: ISSUE, mode: 'automatic', maxRiskLevel: 'medium', confidenceThreshold: 0.5 })).body.data.result;
    expect(result.status).to.equal('executed');
    expect(result.automaticExecution.executed).to.equal(true);
    const entry = await checkEntry(result, before, { mode: 'automatic', rule: result.automaticExecution.reason });
    expect(entry.approval.rule).to.equal('confidence 0.92 reaches 0.5 and every action is within medium risk');
  });
});
