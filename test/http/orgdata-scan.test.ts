import { expect } from 'chai';
import request from 'supertest';
import type { Timers } from '../../domain/ports/clock.js';
import { HashingEmbedder } from '../../infrastructure/embeddings/hashing-embedder.js';
import { resumeCapabilityScan, stopCapabilityScan } from '../../infrastructure/composition-root.js';
import { FakeClock } from '../support/fake-clock.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
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
import { pollRun } from '../support/same-run.js';
import { auth, buildTestApp, type TestApp } from '../support/test-app.js';

// the stand-in's own kinds (27) and five more served through its intercept hook
const DOZEN = [
  'Pod',
  'Event',
  'Namespace',
  'Secret',
  'ConfigMap',
  'Service',
  'PersistentVolumeClaim',
  'ServiceAccount',
  'ResourceQuota',
  'LimitRange',
  'Node',
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'CronJob',
  'HorizontalPodAutoscaler',
  'NetworkPolicy',
  'StorageClass',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'Job',
  'DaemonSet',
  'PodDisruptionBudget',
  'Ingress',
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
      for (const a of apps.splice(0)) await stopCapabilityScan(a.container);
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
    const scanAsRun = (svc: Parameters<typeof request>[0]) =>
      request(svc)
        .post('/api/v1/tools/manageOrgData')
        .set({ ...auth, Prefer: 'respond-async' })
        .send({ dataType: 'capabilities', operation: 'scan' })
        .expect(202);
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

    it('as a run (Prefer: respond-async) the run is the scan: an event per kind, the result ending with the progress the scan ended with', async () => {
      const { app: svc } = app();
      answer = (kind) => (kind === 'Widget' ? { status: 500, error: { message: 'model overloaded' } } : { content: analysisJson(kind), delayMs: 20 });
      const list = await request(svc)
        .post('/api/v1/tools/manageOrgData')
        .set({ ...auth, Prefer: 'respond-async' })
        .send({ dataType: 'pattern', operation: 'list' });
      expect(list.status).to.equal(200);
      expect(list.headers).not.to.have.property('preference-applied');

      const started = await scanAsRun(svc);
      const { runId } = started.body.data;
      expect(started.headers.location).to.equal(`/api/v1/runs/${runId}`);
      expect(started.headers['preference-applied']).to.equal('respond-async');
      const run = await pollRun(svc, auth, runId);
      expect(run.status, JSON.stringify(run.error)).to.equal('succeeded');
      const { progress, ...rest } = run.result.result;
      expect(rest).to.deep.equal({
        dataType: 'capabilities',
        operation: 'scan',
        started: true,
        scanId: progress.scanId,
        message: `Scan of ${ALL} kinds started in the background; ask for its progress with operation progress.`,
      });
      // the run ended with the scan: its progress is what the progress operation answers now
      expect(progress).to.deep.equal((await ok(svc, { dataType: 'capabilities', operation: 'progress' })).progress);
      expect(progress).to.deep.include({ status: 'completed', done: ALL, succeeded: ALL - 1 });
      const scanned = run.progress.filter((e: any) => e.type === 'scanned');
      expect(scanned.map((e: any) => e.data.done)).to.deep.equal(Array.from({ length: ALL }, (_, i) => i + 1));
      expect(scanned.find((e: any) => e.data.resource === 'widget.example.com').data).to.deep.include({ ok: false, total: ALL });
      expect(run.progress.filter((e: any) => e.type === 'model-call')).to.have.length(ALL);
      expect(run.progress.at(-1)).to.deep.include({ type: 'done', data: { status: 'succeeded' } });
    });

    it('cancelling the run of a scan stops the scan: cancelled within 2 s, no kind started after, never resumed, a new scan may start', async () => {
      const { app: svc } = app({ SVC_SCAN_BATCH_SIZE: '2' });
      answer = (kind) => ({ content: analysisJson(kind), delayMs: 300 });
      const started = await scanAsRun(svc);
      const { runId } = started.body.data;
      await pollRun(svc, auth, runId, (r) => r.progress.some((e: any) => e.type === 'scanned'));
      const asked = Date.now();
      const cancelled = (await request(svc).delete(`/api/v1/runs/${runId}`).set(auth).expect(200)).body.data;
      expect(Date.now() - asked).to.be.below(2000);
      expect(cancelled.status).to.equal('cancelled');
      const askedModel = chat.requests.length;
      const stopped = (await ok(svc, { dataType: 'capabilities', operation: 'progress' })).progress;
      expect(stopped).to.deep.include({ status: 'cancelled', inFlight: [] });
      expect(stopped.done).to.be.below(ALL);
      await new Promise((r) => setTimeout(r, 700));
      expect(chat.requests.length, 'no kind starts after the cancel').to.equal(askedModel);
      expect((await ok(svc, { dataType: 'capabilities', operation: 'progress' })).progress).to.deep.equal(stopped);
      // the lease is released and a cancelled scan is not resumed: a new one starts
      const again = await ok(svc, { dataType: 'capabilities', operation: 'scan' });
      expect(again).to.deep.include({ started: true });
      expect(again.scanId).to.not.equal(stopped.scanId);
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
      await resumeCapabilityScan(resumedApp.container);
      const done = await waitForScan(resumedApp.app);
      expect(done).to.deep.include({ scanId: started.scanId, status: 'completed', done: ALL, succeeded: ALL, resumed: 1, failures: [] });
      const afterRestart = kindsAsked().slice(asked);
      expect(afterRestart).to.have.length(ALL - 4);
      for (const k of afterRestart) expect(doneBefore.has(k), `${k} analysed twice`).to.equal(false);
      expect((await ok(resumedApp.app, { dataType: 'capabilities', operation: 'list', limit: 100 })).total).to.equal(ALL);
    });
  });
}
