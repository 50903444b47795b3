import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { DependencyError } from '../../domain/errors.js';
import { nextSteps } from '../../domain/deployment/workflow.js';
import type { SolutionState } from '../../domain/deployment/solution.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { OpenAiChatServer, type ChatReply } from '../support/openai-chat-server.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { analysisAnswer } from '../support/remediation-fixtures.js';
import { buildTestApp, TEST_DATA_DIR, type TestApp } from '../support/test-app.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const PEOPLE = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789', root: 'root-token-0123456789', vera: 'vera-token-0123456789' };
type Who = keyof typeof PEOPLE;
const as = (who: Who) => ({ Authorization: `Bearer ${PEOPLE[who]}` });
const getWeb: ChatReply = {
  toolCalls: [{ name: 'get_resource', arguments: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' }) }],
};
const pause = () => new Promise((r) => setTimeout(r, 5));

describe('GET /api/v1/sessions: the caller’s sessions, newest first, with status and next step', function () {
  this.timeout(30_000);
  const dir = mkdtempSync(path.join(TEST_DATA_DIR, 'sessions-'));
  const tokens = path.join(dir, 'tokens');
  writeFileSync(
    tokens,
    `alice operator ${sha(PEOPLE.alice)}\nbob operator ${sha(PEOPLE.bob)}\nroot admin ${sha(PEOPLE.root)}\nvera viewer ${sha(PEOPLE.vera)}\n`,
  );
  const env = { SVC_AUTH_TOKEN: undefined, SVC_AUTH_TOKENS_FILE: tokens };
  let kube: KubeApiServer;
  let chat: OpenAiChatServer;
  let t: TestApp;

  before(async () => {
    chat = await OpenAiChatServer.start();
    kube = await KubeApiServer.start();
    kube.create(webManifest(2));
    kube.settle();
    t = buildTestApp({
      ...env,
      SVC_DATA_DIR: mkdtempSync(path.join(dir, 'data-')),
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      SVC_LLM_MAX_RETRIES: '0',
      KUBECONFIG: kube.writeKubeconfig(),
    });
  });
  after(async () => {
    for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    await kube.close();
    await chat.close();
  });

  const get = (who: Who, url: string) => request(t.app).get(url).set(as(who));
  const list = async (who: Who, query = '') => (await get(who, `/api/v1/sessions${query}`).expect(200)).body.data;
  let operated: any;
  let remediated: any;
  let solutionId: string;

  it('lists each caller’s own sessions (an admin’s: all), newest first, nextStep being what the tool answered', async () => {
    chat.script(getWeb, { content: 'web runs 2 replicas' }, { content: planJson([scaleWeb(4)]) });
    operated = (await request(t.app).post('/api/v1/tools/operate').set(as('alice')).send({ intent: 'scale web in namespace x to 4' }).expect(200)).body.data
      .result;
    await pause();
    chat.script({ content: 'web should run nginx:1.27.' }, { content: analysisAnswer() });
    remediated = (await request(t.app).post('/api/v1/tools/remediate').set(as('bob')).send({ issue: 'web cannot pull its image' }).expect(200)).body.data
      .result;
    await pause();
    const state: SolutionState = {
      // stored without an identity id (as before ids were): a tokens-file owner's id follows from its name
      owner: { username: 'alice', kind: 'tokens-file' },
      intent: 'a postgres database',
      solution: { score: 80, description: 'one StatefulSet', resources: [], patternsApplied: [], policiesRespected: [], droppedResources: [] },
      policies: [],
      answers: {},
    };
    solutionId = (await t.container.resolve(TOKENS.SessionStore).create('solution', state)).id;

    const alice = await list('alice');
    expect(alice.sessions.map((s: any) => s.sessionId)).to.deep.equal([solutionId, operated.sessionId]);
    expect(alice.nextCursor).to.equal(undefined);
    const [sol, opr] = alice.sessions;
    expect(opr).to.deep.include({
      kind: 'operation',
      tool: 'operate',
      status: operated.status,
      subject: 'scale web in namespace x to 4',
      nextStep: operated.nextStep,
    });
    expect(opr.owner).to.deep.equal({ id: 'tokens-file:svc:alice', username: 'alice', kind: 'tokens-file' });
    expect(Date.parse(opr.createdAt)).to.be.at.most(Date.parse(opr.updatedAt));
    expect(sol).to.deep.include({ kind: 'solution', tool: 'recommend', status: 'awaiting_choice', subject: 'a postgres database' });
    expect(sol.nextSteps).to.deep.equal(nextSteps(solutionId, state));
    expect(sol.nextStep).to.equal(`Choose this solution to get its configuration questions: call chooseSolution with {"solutionId":"${solutionId}"}`);

    const bob = await list('bob');
    expect(bob.sessions).to.have.length(1);
    expect(bob.sessions[0]).to.deep.include({ sessionId: remediated.sessionId, tool: 'remediate', status: remediated.status, nextStep: remediated.nextStep });
    expect((await list('vera')).sessions).to.deep.equal([]);
    expect((await list('root')).sessions.map((s: any) => s.sessionId)).to.deep.equal([solutionId, remediated.sessionId, operated.sessionId]);
  });

  it('filters by tool and status, pages with an opaque cursor, and follows the session as it moves on', async () => {
    expect((await list('root', '?tool=remediate')).sessions.map((s: any) => s.sessionId)).to.deep.equal([remediated.sessionId]);
    expect((await list('root', '?status=awaiting_approval')).sessions.map((s: any) => s.sessionId)).to.deep.equal([remediated.sessionId, operated.sessionId]);
    expect((await list('alice', '?tool=remediate')).sessions).to.deep.equal([]);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list('root', `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.sessions).to.have.length(1);
      seen.push(page.sessions[0].sessionId);
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).to.deep.equal([solutionId, remediated.sessionId, operated.sessionId]);

    const executed = (await request(t.app).post('/api/v1/tools/operate').set(as('alice')).send({ sessionId: operated.sessionId, executeChoice: 1 }).expect(200))
      .body.data.result;
    const [now] = (await list('alice', '?tool=operate')).sessions;
    expect(now).to.deep.include({ status: executed.status, nextStep: executed.nextStep });
    expect((await list('alice', `?status=${executed.status}`)).sessions.map((s: any) => s.sessionId)).to.deep.equal([operated.sessionId]);
  });

  it('GET /sessions/{id}: the owner and an admin read it with what its tool answers; anyone else 403 naming the owner; unknown 404', async () => {
    const look = (await request(t.app).post('/api/v1/tools/remediate').set(as('bob')).send({ sessionId: remediated.sessionId }).expect(200)).body.data.result;
    for (const who of ['bob', 'root'] as const) {
      const shown = (await get(who, `/api/v1/sessions/${remediated.sessionId}`).expect(200)).body.data;
      expect(shown).to.deep.include({ sessionId: remediated.sessionId, kind: 'remediation', status: look.status, nextStep: look.nextStep });
      expect(shown.view).to.deep.equal(look);
    }
    for (const who of ['alice', 'vera'] as const) {
      const refused = (await get(who, `/api/v1/sessions/${remediated.sessionId}`).expect(403)).body.error;
      expect(refused.code).to.equal('FORBIDDEN');
      expect(refused.message).to.equal(`Session ${remediated.sessionId} was started by bob (tokens-file); only they or an admin may read it`);
      expect(refused.details).to.deep.equal({ owner: 'bob' });
    }
    const sol = (await get('alice', `/api/v1/sessions/${solutionId}`).expect(200)).body.data;
    expect(sol.view).to.deep.include({ solutionId, intent: 'a postgres database', answers: {} });
    expect(sol.view).to.not.have.property('owner');
    const unknown = `opr_${'0'.repeat(32)}`;
    expect((await get('alice', `/api/v1/sessions/${unknown}`).expect(404)).body.error).to.deep.include({
      code: 'NOT_FOUND',
      message: `No session ${unknown}: it is unknown or expired`,
    });
    expect((await get('root', '/api/v1/sessions/..%2F..%2Fetc%2Fpasswd').expect(404)).body.error.message).to.equal(
      'No session (malformed id): it is unknown or expired',
    );
  });

  it('answers a bad tool, status, limit or cursor with 400 VALIDATION_ERROR naming the field, before reading the store', async () => {
    const store = new FakeSessionStore({ clock: new FakeClock() });
    const app: Express = buildTestApp({ ...env, SVC_DATA_DIR: mkdtempSync(path.join(dir, 'bad-')) }, { sessions: store }).app;
    const tampered = Buffer.from(`2026-11-25T10:00:00.000Z|rem_${'a'.repeat(31)}g`).toString('base64url');
    const cases: Array<[string, string]> = [
      ['?tool=version', 'tool'],
      ['?tool=', 'tool'],
      ['?status=finished', 'status'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=2.5', 'limit'],
      ['?limit=ten', 'limit'],
      ['?cursor=not-a-cursor', 'cursor'],
      [`?cursor=${tampered}`, 'cursor'],
      [`?cursor=${Buffer.from(`2026-11-25T10:00:00.000Z|run_${'a'.repeat(32)}`).toString('base64url')}`, 'cursor'],
    ];
    for (const [query, field] of cases) {
      store.failNextWith = new DependencyError('sessions', 'the store was reached');
      const error = (await request(app).get(`/api/v1/sessions${query}`).set(as('root')).expect(400)).body.error;
      expect(error.code, query).to.equal('VALIDATION_ERROR');
      expect(error.message, query).to.contain(field);
    }
    // the same store answers a good request, so the 400s above were decided before it
    store.failNextWith = new DependencyError('sessions', 'the store was reached');
    expect((await request(app).get('/api/v1/sessions?limit=5').set(as('root'))).status).to.equal(502);
  });

  it('is in the OpenAPI document with its parameters', async () => {
    const doc = (await request(t.app).get('/api/v1/openapi').expect(200)).body;
    expect(doc.paths['/api/v1/sessions'].get.parameters.map((p: any) => p.name)).to.have.members(['tool', 'status', 'limit', 'cursor']);
    expect(doc.paths['/api/v1/sessions/{sessionId}'].get).to.exist;
  });
});
