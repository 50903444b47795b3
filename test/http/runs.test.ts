import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer, type ChatReply } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { normalised } from '../support/same-run.js';
import { openSse } from '../support/sse-client.js';
import { auth, buildTestApp, TEST_DATA_DIR, type TestApp } from '../support/test-app.js';
import { appParts } from '../../infrastructure/composition-root.js';

const getWeb: ChatReply = {
  toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
};
const analysis: ChatReply = { content: 'web in x runs 2 replicas of nginx:1.27; scale it to 5.' };
const plan = (...actions: Record<string, unknown>[]): ChatReply => ({ content: planJson(actions) });
const ASYNC = { ...auth, Prefer: 'respond-async' };

describe('runs over HTTP: Prefer respond-async, polling, the event stream, cancel', function () {
  this.timeout(30_000);
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let env: Record<string, string>;
  let t: TestApp;
  let server: RunningServer | undefined;

  before(async () => {
    chat = await OpenAiChatServer.start();
  });
  after(async () => {
    await chat.close();
  });
  beforeEach(async () => {
    kube = await KubeApiServer.start();
    kube.create(webManifest(2));
    kube.settle();
    env = {
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      KUBECONFIG: kube.writeKubeconfig(),
      SVC_RUNS_HEARTBEAT_MS: '50',
    };
    chat.requests.length = 0;
    chat.fallback = { content: 'ok' };
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await kube.close();
  });

  async function serve(extra: Record<string, string> = {}): Promise<string> {
    // each test its own data directory: runs are kept in files there
    t = buildTestApp({ ...env, SVC_DATA_DIR: mkdtempSync(path.join(TEST_DATA_DIR, 'runs-')), ...extra });
    server = await startServer(appParts(t.container));
    return server.url;
  }
  const start = (tool: string, body: object) => request(t.app).post(`/api/v1/tools/${tool}`).set(ASYNC).send(body);
  const show = async (runId: string) => (await request(t.app).get(`/api/v1/runs/${runId}`).set(auth).expect(200)).body.data;
  async function until(runId: string, done: (run: any) => boolean, timeoutMs = 10_000): Promise<any> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const run = await show(runId);
      if (done(run)) return run;
      if (Date.now() > end) throw new Error(`run not there in time: ${JSON.stringify(run)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const finished = (r: any) => !['queued', 'running'].includes(r.status);
  const writes = () => kube.requests.filter((r) => !(r.method === 'GET' || r.query.get('dryRun') === 'All'));

  it('operate: 202 with Location at once; the polled result deep-equals the synchronous answer of the same scripted run', async () => {
    await serve();
    chat.script(getWeb, analysis, plan(scaleWeb(5)));
    const sync = await request(t.app).post('/api/v1/tools/operate').set(auth).send({ intent: 'scale web in namespace x to 5 replicas' }).expect(200);
    expect(sync.headers).not.to.have.property('preference-applied');

    chat.script(getWeb, analysis, plan(scaleWeb(5)));
    const started = await start('operate', { intent: 'scale web in namespace x to 5 replicas' }).expect(202);
    const { runId } = started.body.data;
    expect(runId).to.match(/^run_[0-9a-f]{32}$/);
    expect(started.headers.location).to.equal(`/api/v1/runs/${runId}`);
    expect(started.headers['preference-applied']).to.equal('respond-async');
    expect(started.body).to.deep.include({ success: true });
    expect(started.body.data).to.deep.equal({
      runId,
      tool: 'operate',
      status: 'queued',
      links: { self: `/api/v1/runs/${runId}`, events: `/api/v1/runs/${runId}/events` },
    });

    const run = await until(runId, finished);
    expect(run).to.include({ runId, tool: 'operate', status: 'succeeded' });
    // svc serving one cluster: the run names none
    expect(run).not.to.have.property('cluster');
    expect(run.caller).to.deep.equal({ id: 'static:svc:admin', username: 'admin', kind: 'static' });
    expect(Date.parse(run.createdAt)).to.be.at.most(Date.parse(run.startedAt));
    expect(Date.parse(run.startedAt)).to.be.at.most(Date.parse(run.finishedAt));
    expect(normalised(run.result)).to.deep.equal(normalised(sync.body.data));
    expect(run.result.result.sessionId).to.not.equal(sync.body.data.result.sessionId);
    expect(run.progress.map((e: any) => e.type)).to.deep.equal(['model-call', 'function-call', 'model-call', 'model-call', 'dry-run', 'done']);
    expect(run.progress.map((e: any) => e.id)).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(run.progress[1].data).to.deep.equal({ name: 'get_resource' });
    expect(run.progress[4].data).to.deep.include({ method: 'patch', kind: 'Deployment', name: 'web', namespace: 'x', accepted: true });
    expect(run.progress[5].data).to.deep.equal({ status: 'succeeded' });
    expect(writes()).to.deep.equal([]);

    // the approved change, also as a run: applied, rolled out, the same answer shape as synchronously
    const exec = await start('operate', { sessionId: run.result.result.sessionId, executeChoice: 1 }).expect(202);
    const executed = await until(exec.body.data.runId, finished);
    expect(executed.status).to.equal('succeeded');
    expect(executed.result.result.status).to.equal('executed');
    const types = executed.progress.map((e: any) => e.type);
    expect(types).to.include.members(['dry-run', 'applied', 'done']);
    expect(executed.progress.find((e: any) => e.type === 'applied').data).to.deep.include({ method: 'patch', name: 'web', status: 'applied' });
    expect(writes().map((r) => [r.method, r.path])).to.deep.equal([['PATCH', '/apis/apps/v1/namespaces/x/deployments/web']]);
  });

  it('a tool that is never long ignores the preference; a bad input is the same 400 and no run exists', async () => {
    await serve();
    const version = await request(t.app).post('/api/v1/tools/version').set(ASYNC).send({}).expect(200);
    expect(version.headers).not.to.have.property('preference-applied');
    expect(version.body.data.tool).to.equal('version');
    const bad = await start('operate', { intent: 'x', nope: 1 }).expect(400);
    expect(bad.body.error.code).to.equal('VALIDATION_ERROR');
    expect((await request(t.app).get('/api/v1/runs').set(auth).expect(200)).body.data.runs).to.deep.equal([]);
    await request(t.app).get('/api/v1/runs/run_00000000000000000000000000000000').set(auth).expect(404);
    const malformed = await request(t.app).get('/api/v1/runs/..%2Fetc').set(auth).expect(404);
    expect(malformed.body.error.message).to.include('(malformed id)');
  });

  it('the event stream: replay first, live in order, heartbeats, Last-Event-ID on reconnect, ends after done', async () => {
    const base = await serve();
    chat.script({ ...getWeb, delayMs: 300 }, { ...analysis, delayMs: 300 }, plan(scaleWeb(5)));
    const { runId } = (await start('operate', { intent: 'scale web in namespace x to 5 replicas' }).expect(202)).body.data;

    const first = await openSse(`${base}/api/v1/runs/${runId}/events`, auth);
    expect(first.status).to.equal(200);
    expect(first.headers['content-type']).to.match(/^text\/event-stream/);
    expect(first.headers['cache-control']).to.include('no-cache');
    await first.until((s) => s.messages.length >= 2 && s.comments.includes('heartbeat'));
    first.close(); // the client drops off mid-run
    const seen = first.messages.length;
    expect(first.messages[0]).to.deep.include({ id: '1', event: 'model-call' });

    const again = await openSse(`${base}/api/v1/runs/${runId}/events`, { ...auth, 'Last-Event-ID': String(seen) });
    await again.ended;
    const ids = again.messages.map((m) => Number(m.id));
    expect(ids[0]).to.equal(seen + 1);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(again.messages.at(-1)!.event).to.equal('done');
    const all = [...first.messages, ...again.messages].map((m) => m.event);
    expect(all).to.deep.equal(['model-call', 'function-call', 'model-call', 'model-call', 'dry-run', 'done']);
    expect(JSON.parse(again.messages.at(-1)!.data!)).to.deep.include({ type: 'done', data: { status: 'succeeded' } });

    // a finished run replays whole and ends; after its last event there is nothing more
    const replay = await openSse(`${base}/api/v1/runs/${runId}/events`, auth);
    await replay.ended;
    expect(replay.messages.map((m) => m.event)).to.deep.equal(all);
    const none = await openSse(`${base}/api/v1/runs/${runId}/events`, { ...auth, 'Last-Event-ID': '6' });
    await none.ended;
    expect(none.messages).to.deep.equal([]);

    const unknown = await openSse(`${base}/api/v1/runs/run_00000000000000000000000000000000/events`, auth);
    expect(unknown.status).to.equal(404);
    const noAuth = await openSse(`${base}/api/v1/runs/${runId}/events`);
    expect(noAuth.status).to.equal(401);
  });

  it('cancel during a model call that hangs: cancelled within 2 s, saying what was done; a second cancel is 409', async () => {
    await serve();
    chat.script(getWeb, { hang: true });
    const { runId } = (await start('operate', { intent: 'scale web in namespace x to 5 replicas' }).expect(202)).body.data;
    await until(runId, (r) => r.progress.filter((e: any) => e.type === 'model-call').length === 2);
    const asked = Date.now();
    const cancelled = await request(t.app).delete(`/api/v1/runs/${runId}`).set(auth).expect(200);
    expect(Date.now() - asked).to.be.below(2000);
    expect(cancelled.body.data.status).to.equal('cancelled');
    expect(cancelled.body.data.error.code).to.equal('CANCELLED');
    expect(cancelled.body.data.error.message).to.include('2 model call(s), 1 function call(s)');
    expect(cancelled.body.data.progress.at(-1)).to.deep.include({ type: 'done', data: { status: 'cancelled', error: cancelled.body.data.error } });
    const again = await request(t.app).delete(`/api/v1/runs/${runId}`).set(auth).expect(409);
    expect(again.body.error.code).to.equal('CONFLICT');
    await new Promise((r) => setTimeout(r, 300));
    expect((await show(runId)).status).to.equal('cancelled');
    expect(chat.requests).to.have.length(2);
    expect(writes()).to.deep.equal([]);
  });

  it('cancel during a function call: cancelled within 2 s, no further model call', async () => {
    await serve();
    kube.intercept = (r) => (r.method === 'GET' && r.path === '/apis/apps/v1/namespaces/x/deployments/web' ? { hang: true } : undefined);
    chat.script(getWeb, analysis, plan(scaleWeb(5)));
    const { runId } = (await start('operate', { intent: 'scale web in namespace x to 5 replicas' }).expect(202)).body.data;
    await until(runId, (r) => r.progress.some((e: any) => e.type === 'function-call'));
    const asked = Date.now();
    const cancelled = (await request(t.app).delete(`/api/v1/runs/${runId}`).set(auth).expect(200)).body.data;
    expect(Date.now() - asked).to.be.below(2000);
    expect(cancelled.status).to.equal('cancelled');
    await new Promise((r) => setTimeout(r, 300));
    expect(chat.requests).to.have.length(1);
    expect(writes()).to.deep.equal([]);
  });

  it('cancel during a rollout wait: cancelled within 2 s, the write already made is recorded, no write after the cancel', async () => {
    await serve();
    chat.script(getWeb, analysis, plan(scaleWeb(5)));
    const proposal = (await request(t.app).post('/api/v1/tools/operate').set(auth).send({ intent: 'scale web in namespace x to 5 replicas' }).expect(200)).body
      .data.result;
    kube.autoTick = false; // the rollout never finishes
    const { runId } = (await start('operate', { sessionId: proposal.sessionId, executeChoice: 1 }).expect(202)).body.data;
    await until(runId, (r) => r.progress.some((e: any) => e.type === 'waiting'), 15_000);
    const before = writes().length;
    const asked = Date.now();
    const cancelled = (await request(t.app).delete(`/api/v1/runs/${runId}`).set(auth).expect(200)).body.data;
    expect(Date.now() - asked).to.be.below(2000);
    expect(cancelled.status).to.equal('cancelled');
    expect(cancelled.error.message).to.include('1 change(s) applied');
    const waiting = cancelled.progress.find((e: any) => e.type === 'waiting');
    expect(waiting.data).to.deep.include({ kind: 'Deployment', name: 'web', namespace: 'x', desired: 5, met: false });
    expect(cancelled.progress.find((e: any) => e.type === 'applied').data).to.deep.include({ status: 'applied' });
    await new Promise((r) => setTimeout(r, 500));
    expect(before).to.equal(1);
    expect(writes()).to.have.length(1);
  });

  it('limits: beyond SVC_RUNS_MAX_PER_CALLER a 429; beyond SVC_RUNS_MAX_ACTIVE queued in order', async () => {
    await serve({ SVC_RUNS_MAX_ACTIVE: '1', SVC_RUNS_MAX_PER_CALLER: '2' });
    chat.script({ hang: true });
    const a = (await start('operate', { intent: 'scale web in namespace x to 5 replicas' }).expect(202)).body.data.runId;
    const b = (await start('operate', { intent: 'scale web in namespace x to 6 replicas' }).expect(202)).body.data.runId;
    const refused = await start('operate', { intent: 'scale web in namespace x to 7 replicas' }).expect(429);
    expect(refused.body.error.code).to.equal('RATE_LIMITED');
    expect(refused.body.error.message).to.include('SVC_RUNS_MAX_PER_CALLER=2');
    await until(a, (r) => r.status === 'running');
    expect((await show(b)).status).to.equal('queued');

    const list = (await request(t.app).get('/api/v1/runs?limit=1').set(auth).expect(200)).body.data;
    expect(list.runs.map((r: any) => r.runId)).to.deep.equal([b]);
    const next = (await request(t.app).get(`/api/v1/runs?limit=1&cursor=${list.nextCursor}`).set(auth).expect(200)).body.data;
    expect(next.runs.map((r: any) => r.runId)).to.deep.equal([a]);
    expect(next).not.to.have.property('nextCursor');
    expect((await request(t.app).get('/api/v1/runs?status=queued').set(auth).expect(200)).body.data.runs.map((r: any) => r.runId)).to.deep.equal([b]);
    expect((await request(t.app).get('/api/v1/runs?tool=remediate').set(auth).expect(200)).body.data.runs).to.deep.equal([]);
    await request(t.app).get('/api/v1/runs?status=done').set(auth).expect(400);
    await request(t.app).get('/api/v1/runs?limit=0').set(auth).expect(400);
    await request(t.app).get('/api/v1/runs?cursor=bogus').set(auth).expect(400);

    // cancelling the queued one ends it at once; cancelling the running one lets nothing else start but frees the slot
    const queuedCancel = (await request(t.app).delete(`/api/v1/runs/${b}`).set(auth).expect(200)).body.data;
    expect(queuedCancel).to.deep.include({ status: 'cancelled' });
    expect(queuedCancel.error.message).to.equal('Cancelled before it started; nothing was done');
    chat.script({ content: 'ok' });
    await request(t.app).delete(`/api/v1/runs/${a}`).set(auth).expect(200);
    const c = (await start('operate', { intent: 'scale web in namespace x to 8 replicas' }).expect(202)).body.data.runId;
    await until(c, (r) => r.status !== 'queued');
  });
});
