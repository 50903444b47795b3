import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { writeFleetKubeconfig } from '../../lab/sandbox/kube/fleet-kubeconfig.js';
import type { ChatReply } from '../support/scripted-model.js';
import { startModelStandIn, type ModelStandIn } from '../support/model-stand-ins.js';
import { planJson, scaleWeb, webManifest } from '../support/operate-fixtures.js';
import { analysisAnswer } from '../support/remediation-fixtures.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { fleetWithModel, NEW_WEB_IMAGE, startFleet, startWaveFleet, webImageIn, WAVE_ORDER, type FleetFixture } from '../support/fleet-fixture.js';
import { pollRun } from '../support/same-run.js';

const WEB = '/apis/apps/v1/namespaces/x/deployments/web';
const plan = (...actions: Record<string, unknown>[]): ChatReply => ({ content: planJson(actions) });
/** Requests that persisted something: anything but GET and dry runs. */
const writesOf = (kube: KubeApiServer) => kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All');

describe('a fleet of clusters in one svc (SVC_CLUSTERS): two sandbox clusters behind one kubeconfig', () => {
  let chat: ModelStandIn;
  let staging: KubeApiServer;
  let production: KubeApiServer;
  let dir: string;
  let env: Record<string, string>;

  before(async () => {
    chat = await startModelStandIn('openai');
  });
  after(async () => {
    await chat.close();
  });
  beforeEach(async () => {
    staging = await KubeApiServer.start();
    production = await KubeApiServer.start();
    for (const kube of [staging, production]) {
      kube.create(webManifest(2));
      kube.settle();
    }
    dir = mkdtempSync(path.join(tmpdir(), 'svc-fleet-'));
    const kubeconfig = writeFleetKubeconfig(path.join(dir, 'kubeconfig'), [
      { name: 'staging', url: staging.url, token: staging.token },
      { name: 'production', url: production.url, token: production.token },
    ]);
    const clustersFile = path.join(dir, 'clusters.yaml');
    writeFileSync(clustersFile, 'clusters:\n  staging:\n    labels: {env: staging}\n  production:\n    labels: {env: production, region: eu}\n');
    env = { ...chat.env(), KUBECONFIG: kubeconfig, SVC_CLUSTERS: 'staging,production', SVC_CLUSTERS_FILE: clustersFile, SVC_DATA_DIR: dir };
    chat.requests.length = 0;
  });
  afterEach(async () => {
    await staging.close();
    await production.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const operate = (app: Express, body: object) => request(app).post('/api/v1/tools/operate').set(auth).send(body);
  const withRules = (yaml: string) => {
    writeFileSync(env.SVC_CLUSTERS_FILE, yaml);
    return env;
  };

  it('GET /api/v1/clusters lists each cluster with its labels, read-only flag, reachability and server version', async () => {
    const { app } = buildTestApp(env);
    const res = await request(app).get('/api/v1/clusters').set(auth).expect(200);
    expect(res.body.data.clusters).to.deep.equal([
      { name: 'staging', labels: { env: 'staging' }, readOnly: false, reachable: true, serverVersion: 'v1.31.2' },
      { name: 'production', labels: { env: 'production', region: 'eu' }, readOnly: false, reachable: true, serverVersion: 'v1.31.2' },
    ]);
    // one unreachable cluster is listed as such; the answer (and svc) stays up
    await production.close();
    const down = (await request(app).get('/api/v1/clusters').set(auth).expect(200)).body.data.clusters;
    expect(down.map((c: { name: string; reachable: boolean }) => [c.name, c.reachable])).to.deep.equal([
      ['staging', true],
      ['production', false],
    ]);
    const version = (await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200)).body.data.result;
    expect(version.status).to.equal('degraded');
    expect(version.system.kubernetes).to.include({ connected: false, error: '1 of 2 clusters unreachable: production' });
    expect(version.system.clusters.map((c: { name: string }) => c.name)).to.deep.equal(['staging', 'production']);
    // /readyz reports each cluster; an unreachable one does not make svc unready
    const ready = await request(app).get('/readyz').set(auth);
    expect(ready.body.clusters).to.deep.equal([
      { name: 'staging', reachable: true },
      { name: 'production', reachable: false },
    ]);
    const one = (await request(app).post('/api/v1/tools/version').set(auth).send({ cluster: 'staging' }).expect(200)).body.data.result;
    expect(one.system.kubernetes).to.include({ connected: true, context: 'staging', serverVersion: 'v1.31.2' });
    production = await KubeApiServer.start(); // closed again by afterEach
  });

  it('a call without cluster is refused (400) naming the choices, before any request to either cluster or the model', async () => {
    const { app } = buildTestApp(env);
    const res = await operate(app, { intent: 'scale web in namespace x to 5 replicas' }).expect(400);
    expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    expect(res.body.error.message).to.contain('svc serves 2 clusters (staging, production)');
    const unknown = await operate(app, { intent: 'scale web', cluster: 'qa' }).expect(400);
    expect(unknown.body.error.message).to.contain('cluster "qa" is not a cluster svc serves (one of staging, production)');
    expect(staging.requests).to.deep.equal([]);
    expect(production.requests).to.deep.equal([]);
    expect(chat.requests).to.deep.equal([]);
  });

  it('a tool call reaches only its cluster; the ledger records and filters by cluster; revert goes to the entry’s cluster', async () => {
    const tracer = new RecordingTracer();
    const { app } = buildTestApp(env, { tracer });
    chat.script({ content: 'web runs 2 replicas; scale it.' }, plan(scaleWeb(5)));
    const start = (await operate(app, { intent: 'scale web in namespace x to 5 replicas', cluster: 'production' }).expect(200)).body.data.result;
    expect(start.status).to.equal('awaiting_approval');
    expect(staging.requests).to.deep.equal([]);
    expect(production.requests.length).to.be.greaterThan(0);

    // the session is production's: executing it as staging's is refused before anything is written
    const wrong = await operate(app, { sessionId: start.sessionId, executeChoice: 1, cluster: 'staging' }).expect(400);
    expect(wrong.body.error.message).to.contain(`session ${start.sessionId} belongs to cluster production`);
    expect(writesOf(production)).to.deep.equal([]);

    const done = (await operate(app, { sessionId: start.sessionId, executeChoice: 1, cluster: 'production' }).expect(200)).body.data.result;
    expect(done.status).to.equal('executed');
    expect(production.objects.get(WEB)!.spec.replicas).to.equal(5);
    expect(staging.objects.get(WEB)!.spec.replicas).to.equal(2);
    expect(staging.requests).to.deep.equal([]);
    const span = tracer.spans.filter((s) => s.name === 'execute_tool operate');
    expect(span.map((s) => s.attributes['svc.cluster'])).to.deep.equal(['production', 'staging', 'production']);

    const changes = (await request(app).get('/api/v1/changes?cluster=production').set(auth).expect(200)).body.data.changes;
    expect(changes.length).to.be.greaterThan(0);
    expect(changes.every((c: { cluster: string }) => c.cluster === 'production')).to.equal(true);
    expect((await request(app).get('/api/v1/changes?cluster=staging').set(auth).expect(200)).body.data.changes).to.deep.equal([]);
    const metrics = (await request(app).get('/metrics').set(auth).expect(200)).text;
    expect(metrics).to.contain('svc_cluster_tool_runs_total{cluster="production",tool="operate",outcome="success"} 2');
    expect(metrics).to.contain('svc_cluster_tool_runs_total{cluster="staging",tool="operate",outcome="error"} 1');
    // the write went to production, and is counted there
    expect(metrics).to.contain('svc_cluster_writes_total{cluster="production",verb="patch",outcome="success"} 1');
    expect(metrics).to.not.contain('svc_cluster_writes_total{cluster="staging"');
    const integrity = (await request(app).get('/api/v1/changes/integrity').set(auth).expect(200)).body.data;
    expect(integrity.ok).to.equal(true);

    const patch = changes.find((c: { type: string; change: { method: string } }) => c.type === 'change' && c.change.method === 'patch');
    const revert = (await request(app).post(`/api/v1/changes/${patch.id}/revert`).set(auth).send({}).expect(200)).body.data;
    expect(revert.revert.cluster).to.equal('production');
    expect(production.objects.get(WEB)!.spec.replicas).to.equal(2);
    expect(staging.requests).to.deep.equal([]);
  });

  it('a run (Prefer: respond-async) names its cluster, works only there, and the runs list filters by cluster', async () => {
    const { app } = buildTestApp(env);
    chat.script({ content: 'web runs 2 replicas; scale it.' }, plan(scaleWeb(5)));
    const started = await request(app)
      .post('/api/v1/tools/operate')
      .set({ ...auth, Prefer: 'respond-async' })
      .send({ intent: 'scale web in namespace x to 5 replicas', cluster: 'production' })
      .expect(202);
    expect(started.body.data.cluster).to.equal('production');
    const run = await pollRun(app, auth, started.body.data.runId);
    expect(run.status, JSON.stringify(run.error)).to.equal('succeeded');
    expect(run.cluster).to.equal('production');
    expect(run.result.result.status).to.equal('awaiting_approval');
    // the run's work went to production's client only
    expect(production.requests.length).to.be.greaterThan(0);
    expect(staging.requests).to.deep.equal([]);

    const listed = (await request(app).get('/api/v1/runs?cluster=production').set(auth).expect(200)).body.data.runs;
    expect(listed.map((r: { runId: string; cluster: string }) => [r.runId, r.cluster])).to.deep.equal([[run.runId, 'production']]);
    expect((await request(app).get('/api/v1/runs?cluster=staging').set(auth).expect(200)).body.data.runs).to.deep.equal([]);
    const bad = await request(app).get('/api/v1/runs?cluster=-nope').set(auth).expect(400);
    expect(bad.body.error.code).to.equal('VALIDATION_ERROR');
    // a run for a cluster svc does not serve is refused before any run exists
    await request(app)
      .post('/api/v1/tools/operate')
      .set({ ...auth, Prefer: 'respond-async' })
      .send({ intent: 'scale web', cluster: 'qa' })
      .expect(400);
    expect((await request(app).get('/api/v1/runs').set(auth).expect(200)).body.data.runs).to.have.length(1);
  });

  it('a read-only cluster refuses execution (403) before any write; previews still run there', async () => {
    const { app } = buildTestApp(withRules('clusters:\n  production:\n    readOnly: true\n'));
    chat.script({ content: 'ok' }, plan(scaleWeb(5)));
    const start = (await operate(app, { intent: 'scale web in namespace x to 5 replicas', cluster: 'production' }).expect(200)).body.data.result;
    expect(start.status).to.equal('awaiting_approval');
    const refused = await operate(app, { sessionId: start.sessionId, executeChoice: 1, cluster: 'production' }).expect(403);
    expect(refused.body.error.code).to.equal('FORBIDDEN');
    expect(refused.body.error.message).to.contain('cluster production is read-only');
    expect(writesOf(production)).to.deep.equal([]);
    expect(production.objects.get(WEB)!.spec.replicas).to.equal(2);
    const listed = (await request(app).get('/api/v1/clusters').set(auth).expect(200)).body.data.clusters;
    expect(listed.find((c: { name: string }) => c.name === 'production').readOnly).to.equal(true);
  });

  it('roles differ per cluster: the same caller executes in staging and is a viewer in production', async () => {
    const { app } = buildTestApp(withRules('clusters:\n  production:\n    roles: "viewer=*"\n  staging:\n    roles: "admin=*"\n'));
    const refused = await operate(app, { intent: 'scale web in namespace x to 5 replicas', cluster: 'production' }).expect(403);
    expect(refused.body.error.message).to.contain('operate in cluster production needs the operator role');
    expect(production.requests).to.deep.equal([]);
    chat.script({ content: 'ok' }, plan(scaleWeb(3)));
    const start = (await operate(app, { intent: 'scale web in namespace x to 3 replicas', cluster: 'staging' }).expect(200)).body.data.result;
    // looking at the session is a viewer's call, also with the cluster named
    await operate(app, { sessionId: start.sessionId, cluster: 'staging' }).expect(200);
    const done = (await operate(app, { sessionId: start.sessionId, executeChoice: 1, cluster: 'staging' }).expect(200)).body.data.result;
    expect(done.status).to.equal('executed');
    expect(staging.objects.get(WEB)!.spec.replicas).to.equal(3);
  });

  it('remediate with clusterSelector investigates in each matching cluster (each its own session) and says what they have in common', async () => {
    const { app } = buildTestApp(env);
    // the investigations run concurrently: each model call is answered by what it asks (the structured analysis, or the loop's last word)
    const reply = (body: { response_format?: unknown }) => ({ content: body.response_format ? analysisAnswer() : 'web cannot pull nginx:9.9-missing.' });
    chat.script(reply, reply, reply, reply);
    const res = await request(app)
      .post('/api/v1/tools/remediate')
      .set(auth)
      .send({ issue: 'web in namespace x is not ready', clusterSelector: {} })
      .expect(200);
    const result = res.body.data.result;
    expect(result.fleet.clusters.map((c: { cluster: string; status: string }) => [c.cluster, c.status])).to.deep.equal([
      ['staging', 'awaiting_approval'],
      ['production', 'awaiting_approval'],
    ]);
    expect(result.fleet.common.rootCause).to.contain('nginx:9.9-missing');
    expect(result.fleet.common.actions).to.deep.equal(['patch Deployment x/web']);
    expect(staging.requests.length).to.be.greaterThan(0);
    expect(production.requests.length).to.be.greaterThan(0);
    expect(writesOf(staging)).to.deep.equal([]);
    expect(writesOf(production)).to.deep.equal([]);
    // each cluster's session is its own: it continues on its cluster only
    const [first, second] = result.fleet.clusters;
    await request(app).post('/api/v1/tools/remediate').set(auth).send({ sessionId: first.sessionId, cluster: 'staging' }).expect(200);
    await request(app).post('/api/v1/tools/remediate').set(auth).send({ sessionId: second.sessionId, cluster: 'staging' }).expect(400);
  });

  it('reverting over REST holds the entry cluster’s rules: its own roles, and read-only (403 before any request)', async () => {
    const { app } = buildTestApp(env);
    chat.script({ content: 'ok' }, plan(scaleWeb(4)));
    const start = (await operate(app, { intent: 'scale web in namespace x to 4 replicas', cluster: 'production' }).expect(200)).body.data.result;
    const done = (await operate(app, { sessionId: start.sessionId, executeChoice: 1, cluster: 'production' }).expect(200)).body.data.result;
    const id = done.execution.outcome.actions[0].ledgerId;
    // the same ledger, served with production's roles mapping everyone to viewer there
    const { app: viewerThere } = buildTestApp(withRules('clusters:\n  production:\n    roles: "viewer=*"\n'));
    const refused = await request(viewerThere).post(`/api/v1/changes/${id}/revert`).set(auth).send({}).expect(403);
    expect(refused.body.error.message).to.contain('operator role');
    const { app: readOnly } = buildTestApp(withRules('clusters:\n  production:\n    readOnly: true\n'));
    const before = production.requests.length;
    const ro = await request(readOnly).post(`/api/v1/changes/${id}/revert`).set(auth).send({}).expect(403);
    expect(ro.body.error.message).to.contain('cluster production is read-only');
    expect(production.requests.length).to.equal(before);
    expect(production.objects.get(WEB)!.spec.replicas).to.equal(4);
  });

  it('the catalog and the OpenAPI show cluster on every tool', async () => {
    const { app } = buildTestApp(env);
    const tools = (await request(app).get('/api/v1/tools').set(auth).expect(200)).body.data.tools as { name: string; inputSchema: { properties: object } }[];
    expect(tools).to.have.length(9);
    for (const t of tools) expect(t.inputSchema.properties, t.name).to.have.property('cluster');
    const openapi = (await request(app).get('/api/v1/openapi').set(auth).expect(200)).body;
    expect(openapi.paths).to.have.property('/api/v1/clusters');
  });
});

describe('a rollout across a fleet (operate with clusterSelector): waves, one approval, stop and revert at a degraded wave', () => {
  const suite = fleetWithModel(startWaveFleet);

  const newImage = NEW_WEB_IMAGE;
  const imageIn = (name: string) => webImageIn(suite.fleet, name);

  it('plans per cluster, executes wave by wave on one digest, stops at the degraded second wave and reverts it; the third cluster saw no write', async () => {
    const { app } = buildTestApp({ ...suite.chat.env(), ...suite.fleet.env });
    suite.chat.script({ content: 'ok' }, plan(newImage), { content: 'ok' }, plan(newImage), { content: 'ok' }, plan(newImage));
    const started = await request(app)
      .post('/api/v1/tools/operate')
      .set(auth)
      .send({ intent: 'run web in x on nginx:1.28', clusterSelector: { team: 'shop' }, waveOrder: WAVE_ORDER })
      .expect(200);
    const rollout = started.body.data.result;
    expect(rollout.sessionId).to.match(/^rol_[0-9a-f]{32}$/);
    expect(rollout.status).to.equal('awaiting_approval');
    expect(rollout.rollout.waves.map((w: { clusters: { cluster: string }[] }) => w.clusters.map((c) => c.cluster))).to.deep.equal([
      ['staging'],
      ['canary'],
      ['production'],
    ]);
    // each cluster previewed through the guard (a dry run in each), nothing written anywhere
    for (const name of ['staging', 'canary', 'production']) {
      expect(
        suite.fleet.clusters[name].requests.some((r) => r.query.get('dryRun') === 'All'),
        name,
      ).to.equal(true);
      expect(suite.fleet.writes(name), name).to.deep.equal([]);
    }
    // one approval binds the whole plan: no digest is a 400, another digest a 409
    await request(app).post('/api/v1/tools/operate').set(auth).send({ sessionId: rollout.sessionId, executeChoice: 1 }).expect(400);
    await request(app)
      .post('/api/v1/tools/operate')
      .set(auth)
      .send({ sessionId: rollout.sessionId, executeChoice: 1, planDigest: `sha256:${'0'.repeat(64)}` })
      .expect(409);
    expect(suite.fleet.writes('staging')).to.deep.equal([]);

    const ran = (
      await request(app)
        .post('/api/v1/tools/operate')
        .set(auth)
        .send({ sessionId: rollout.sessionId, executeChoice: 1, planDigest: rollout.planDigest })
        .expect(200)
    ).body.data.result;
    expect(ran.status).to.equal('execution_failed');
    expect(ran.rollout.stoppedAt).to.deep.include({ wave: 2, cluster: 'canary' });
    expect(ran.rollout.waves.map((w: { status: string }) => w.status)).to.deep.equal(['executed', 'degraded', 'not-run']);
    const [canary] = ran.rollout.waves[1].clusters;
    expect(canary.verdict).to.equal('degraded');
    expect(canary.reverted).to.have.length(1);
    expect(ran.nextStep).to.contain('Stopped at wave 2 (cluster canary)');
    // staging keeps its verified change, canary is back where it was, production saw no write at all
    expect(imageIn('staging')).to.equal('nginx:1.28');
    expect(imageIn('canary')).to.equal('nginx:1.27');
    expect(imageIn('production')).to.equal('nginx:1.27');
    expect(suite.fleet.writes('production')).to.deep.equal([]);
    // the ledger says where each write and its revert went
    const canaryChanges = (await request(app).get('/api/v1/changes?cluster=canary').set(auth).expect(200)).body.data.changes;
    expect(canaryChanges.map((c: { type: string }) => c.type)).to.include('revert');
    expect((await request(app).get('/api/v1/changes?cluster=production').set(auth).expect(200)).body.data.changes).to.deep.equal([]);
  });

  it('refuses a selector matching nothing, waves leaving a cluster out, and a read-only cluster before any write', async () => {
    const { app } = buildTestApp({ ...suite.chat.env(), ...suite.fleet.env });
    const none = await request(app)
      .post('/api/v1/tools/operate')
      .set(auth)
      .send({ intent: 'x', clusterSelector: { env: 'qa' } })
      .expect(400);
    expect(none.body.error.message).to.contain('no cluster matches clusterSelector');
    const partial = await request(app)
      .post('/api/v1/tools/operate')
      .set(auth)
      .send({ intent: 'x', clusterSelector: { team: 'shop' }, waves: [['staging'], ['canary']] })
      .expect(400);
    expect(partial.body.error.message).to.contain('waves leaves out production');
    expect(suite.chat.requests).to.deep.equal([]);
  });
});

describe('per-cluster roles are authoritative (a cluster’s roles decide the caller’s role there, in both directions)', () => {
  const sha = (t: string) => createHash('sha256').update(t).digest('hex');
  const PEOPLE = { alice: 'alice-token-0123456789', vera: 'vera-token-0123456789' };
  const as = (who: keyof typeof PEOPLE) => ({ Authorization: `Bearer ${PEOPLE[who]}` });
  let chat: ModelStandIn;
  let fleet: FleetFixture;
  let app: Express;

  before(async () => {
    chat = await startModelStandIn('openai');
  });
  after(async () => {
    await chat.close();
  });
  beforeEach(async () => {
    // svc's tokens make alice an operator and vera a viewer; staging makes vera (only) its operator, production everyone a viewer
    fleet = await startFleet(['staging', 'production'], 'clusters:\n  staging:\n    roles: "operator=user:vera"\n  production:\n    roles: "viewer=*"\n');
    const tokens = path.join(path.dirname(fleet.env.KUBECONFIG), 'tokens');
    writeFileSync(tokens, `alice operator ${sha(PEOPLE.alice)}\nvera viewer ${sha(PEOPLE.vera)}\n`);
    app = buildTestApp({ ...chat.env(), ...fleet.env, SVC_AUTH_TOKEN: undefined, SVC_AUTH_TOKENS_FILE: tokens }).app;
    chat.requests.length = 0;
  });
  afterEach(async () => {
    await fleet.close();
  });
  const call = (who: keyof typeof PEOPLE, tool: string, body: object) => request(app).post(`/api/v1/tools/${tool}`).set(as(who)).send(body);

  it('a viewer elsewhere is an operator in staging: plans and executes there, and reaches tools only operators call', async () => {
    chat.script({ content: 'ok' }, plan(scaleWeb(3)));
    const start = (await call('vera', 'operate', { intent: 'scale web in namespace x to 3 replicas', cluster: 'staging' }).expect(200)).body.data.result;
    const done = (await call('vera', 'operate', { sessionId: start.sessionId, executeChoice: 1, cluster: 'staging' }).expect(200)).body.data.result;
    expect(done.status).to.equal('executed');
    expect(fleet.clusters.staging.objects.get(WEB)!.spec.replicas).to.equal(3);
    // a tool whose every call needs an operator passes the gate for her and is judged in staging (an unknown solution: 400, not 403)
    const deploy = await call('vera', 'deployManifests', { solutionId: `sol_${'0'.repeat(32)}`, cluster: 'staging' });
    expect(deploy.status, JSON.stringify(deploy.body)).to.equal(400);
    // ...and in production, where she is a viewer as everywhere else, it is refused before any request
    const refused = await call('vera', 'deployManifests', { solutionId: `sol_${'0'.repeat(32)}`, cluster: 'production' }).expect(403);
    expect(refused.body.error.message).to.contain('in cluster production needs the operator role');
    expect(fleet.clusters.production.requests).to.deep.equal([]);
  });

  it('an operator elsewhere is a viewer in production and holds nothing in staging, whose mapping names only vera', async () => {
    for (const cluster of ['production', 'staging']) {
      const refused = await call('alice', 'operate', { intent: 'scale web in namespace x to 3 replicas', cluster }).expect(403);
      expect(refused.body.error.message, cluster).to.contain(`operate in cluster ${cluster} needs the operator role`);
    }
    expect(chat.requests).to.deep.equal([]);
    // looking is a viewer's call: production lets her, staging (no role there) does not
    await call('alice', 'version', { cluster: 'production' }).expect(200);
    expect((await call('alice', 'version', { cluster: 'staging' }).expect(403)).body.error.message).to.contain('in cluster staging');
    expect(fleet.writes('staging')).to.deep.equal([]);
    expect(fleet.writes('production')).to.deep.equal([]);
  });
});
