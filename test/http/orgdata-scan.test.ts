import { expect } from 'chai';
import request from 'supertest';
import type { Timers } from '../../domain/ports/clock.js';
import { HashingEmbedder } from '../../infrastructure/embeddings/hashing-embedder.js';
import { resumeBackgroundWork, stopBackgroundWork } from '../../infrastructure/orgdata/register-org-data.js';
import { FakeClock } from '../support/fake-clock.js';
import { KubeApiServer } from '../support/kube-api-server.js';
import { OpenAiChatServer, type ChatReply } from '../support/openai-chat-server.js';
import {
  analysisJson,
  embeddedBackend,
  EXTRA_KINDS,
  ok,
  qdrantBackend,
  requestedKind,
  serveDozenKinds,
  waitForScan,
  type StoreBackend,
} from '../support/orgdata-http.js';
import { auth, buildTestApp, type TestApp } from '../support/test-app.js';

// the stand-in's own kinds (17) and five more served through its intercept hook
const DOZEN = [
  'Pod',
  'Event',
  'Namespace',
  'Secret',
  'ConfigMap',
  'Service',
  'PersistentVolumeClaim',
  'ServiceAccount',
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'CronJob',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'Widget',
  ...EXTRA_KINDS,
];
const ALL = DOZEN.length;

for (const backend of [embeddedBackend(), qdrantBackend()] as StoreBackend[]) {
  describe(`HTTP manageOrgData: capability scan on the ${backend.name}, chat and Kubernetes stand-ins`, function () {
    this.timeout(30000);
    let kube: KubeApiServer;
    let chat: OpenAiChatServer;
    const apps: TestApp[] = [];
    /** How the model answers one kind. */
    let answer: (kind: string) => ChatReply;

    before(async () => {
      kube = await KubeApiServer.start();
      serveDozenKinds(kube);
    });
    after(() => kube.close());
    beforeEach(async () => {
      await backend.before();
      chat = await OpenAiChatServer.start();
      answer = (kind) => ({ content: analysisJson(kind) });
      chat.script(...Array.from({ length: 200 }, () => (body: Record<string, unknown>) => answer(requestedKind(body as never))));
    });
    afterEach(async () => {
      for (const a of apps.splice(0)) await stopBackgroundWork(a.container);
      await chat.close();
      await backend.after();
    });

    const app = (env: Record<string, string> = {}, overrides: Parameters<typeof buildTestApp>[1] = {}) => {
      const built = buildTestApp(
        {
          ...backend.env(),
          KUBECONFIG: kube.writeKubeconfig(),
          OPENAI_API_KEY: chat.apiKey,
          OPENAI_BASE_URL: chat.baseUrl,
          SVC_LLM_MODEL: 'gpt-test',
          SVC_LLM_MAX_RETRIES: '0',
          ...env,
        },
        // embeddings stay local although OPENAI_API_KEY is set for the chat model
        { embedder: new HashingEmbedder(), ...overrides },
      );
      apps.push(built);
      return built;
    };
    const kindsAsked = () => chat.requests.map((r) => requestedKind(r as never));

    it('scans a dozen kinds in the background with one failing; progress midway; results searchable; /readyz and version counts move', async () => {
      const clock = new FakeClock(Date.now());
      const { app: svc } = app({}, { clock });
      answer = (kind) => (kind === 'Widget' ? { status: 500, error: { message: 'model overloaded' } } : { content: analysisJson(kind), delayMs: 250 });
      const before = await request(svc).get('/readyz').set(auth).expect(200);
      expect(before.body).to.include({ collectionAccessible: false, storedCount: 0 });

      const started = await ok(svc, { dataType: 'capabilities', operation: 'scan' });
      expect(started).to.deep.include({ started: true });
      expect(started.scanId).to.match(/^scan_[0-9a-f]{32}$/);
      expect(started.progress).to.deep.include({ status: 'running', done: 0, total: ALL });

      const second = await ok(svc, { dataType: 'capabilities', operation: 'scan' });
      expect(second).to.deep.include({ started: false, scanId: started.scanId });
      expect(second.message).to.contain('already running');
      const midway = await waitForScan(svc, (p) => p.done >= 4 && p.current !== undefined);
      expect(midway.status).to.equal('running');
      expect(midway.done).to.be.below(ALL);
      expect(midway.current).to.be.a('string');

      const done = await waitForScan(svc);
      expect(done).to.deep.include({ scanId: started.scanId, done: ALL, total: ALL, succeeded: ALL - 1 });
      expect(done.failures).to.have.length(1);
      expect(done.failures[0].resource).to.equal('widget.example.com');
      expect(done.failures[0].reason).to.contain('500');
      expect(kindsAsked().sort()).to.deep.equal([...DOZEN].sort());

      const found = await ok(svc, { dataType: 'capabilities', operation: 'search', query: 'Certificate provisioning', limit: 3 });
      expect(found.results[0].item).to.deep.include({ id: 'certificate.extra.example.com', complexity: 'medium' });
      expect(found.results[0].item.resource).to.deep.include({ kind: 'Certificate', apiVersion: 'extra.example.com/v1' });
      const deployment = await ok(svc, { dataType: 'capabilities', operation: 'get', id: 'deployment.apps' });
      expect(deployment.item.capabilities).to.deep.equal(['Deployment provisioning', 'deployment lifecycle management']);
      expect((await ok(svc, { dataType: 'capabilities', operation: 'list', limit: 100 })).total).to.equal(ALL - 1);

      clock.advance(30_000); // past the readiness cache
      const after = await request(svc).get('/readyz').set(auth).expect(200);
      expect(after.body).to.include({ collectionAccessible: true, storedCount: ALL - 1 });
      const status = await request(svc).post('/api/v1/tools/version').set(auth).send({}).expect(200);
      expect(status.body.data.result.system.vectorDB.collections.capabilities).to.deep.equal({ exists: true, documentsCount: ALL - 1 });
    });

    it('fails only the kinds a hostile model answers badly (bad JSON, endless output)', async () => {
      const { app: svc } = app();
      answer = (kind) => {
        if (kind === 'ConfigMap') return { content: 'I think a ConfigMap is {"capabilities": ["config"' };
        if (kind === 'Secret') return { content: `{"capabilities": ["${'very '.repeat(30_000)}long"]}`, finishReason: 'length' };
        return { content: analysisJson(kind) };
      };
      await ok(svc, { dataType: 'capabilities', operation: 'scan' });
      const done = await waitForScan(svc);
      expect(done).to.deep.include({ done: ALL, succeeded: ALL - 2 });
      const reasons = Object.fromEntries(done.failures.map((f: { resource: string; reason: string }) => [f.resource, f.reason]));
      expect(Object.keys(reasons).sort()).to.deep.equal(['configmap.core', 'secret.core']);
      expect(reasons['configmap.core']).to.contain('unusable after one retry');
      expect(reasons['secret.core']).to.contain('more than the 100000 allowed');
      expect(kindsAsked().filter((k) => k === 'Secret')).to.have.length(2);
      expect((await ok(svc, { dataType: 'capabilities', operation: 'list', limit: 100 })).total).to.equal(ALL - 2);
    });

    it('resumes a scan interrupted by a restart from where it stopped', async () => {
      // the first svc dies after the first batch: its model calls hang and its timers never fire again
      const dead: Timers & { now(): number } = { now: () => Date.now(), schedule: () => () => undefined };
      let phase: 'before' | 'after' = 'before';
      let answered = 0;
      answer = (kind) => (phase === 'before' && answered++ >= 4 ? { hang: true } : { content: analysisJson(kind) });
      const first = app({ SVC_SCAN_LEASE_MS: '1000', SVC_LLM_TIMEOUT_MS: '600000' }, { clock: dead });
      const started = await ok(first.app, { dataType: 'capabilities', operation: 'scan' });
      const interrupted = await waitForScan(first.app, (p) => p.done === 4 && p.inFlight.length === 4);
      expect(interrupted.status).to.equal('running');
      // the second batch's model calls have all arrived (and hang), so none of them is answered after the switch below
      for (let i = 0; chat.requests.length < 8; i++) {
        if (i > 500) throw new Error(`only ${chat.requests.length} model calls arrived`);
        await new Promise((r) => setTimeout(r, 10));
      }
      const doneBefore = new Set(kindsAsked().slice(0, 4));

      phase = 'after';
      const asked = chat.requests.length;
      // the restart: a second app on the first one's SVC_DATA_DIR (and the same Qdrant, for that adapter)
      const resumedApp = app({ ...backend.env(first.config.server.dataDir), SVC_SCAN_LEASE_MS: '1000' });
      await resumeBackgroundWork(resumedApp.container);
      const done = await waitForScan(resumedApp.app);
      expect(done).to.deep.include({ scanId: started.scanId, status: 'completed', done: ALL, succeeded: ALL, resumed: 1, failures: [] });
      const afterRestart = kindsAsked().slice(asked);
      expect(afterRestart).to.have.length(ALL - 4);
      for (const k of afterRestart) expect(doneBefore.has(k), `${k} analysed twice`).to.equal(false);
      expect((await ok(resumedApp.app, { dataType: 'capabilities', operation: 'list', limit: 100 })).total).to.equal(ALL);
    });
  });
}
