import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { HashingEmbedder } from '../../infrastructure/embeddings/hashing-embedder.js';
import { stopCapabilityScan } from '../../infrastructure/composition-root.js';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { writeFleetKubeconfig } from '../../lab/sandbox/kube/fleet-kubeconfig.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';
import { analysisJson, embeddedBackend, ok, orgData, qdrantBackend, requestedKind, type StoreBackend } from '../support/orgdata-http.js';
import { auth, buildTestApp, type TestApp } from '../support/test-app.js';

/** Polls a cluster's scan progress until it has ended. */
async function scanEnded(app: Express, cluster: string): Promise<any> {
  const deadline = Date.now() + 15000;
  for (;;) {
    const { progress } = await ok(app, { dataType: 'capabilities', operation: 'progress', cluster });
    if (progress?.status === 'completed') return progress;
    if (Date.now() > deadline) throw new Error(`the scan in ${cluster} did not complete: ${JSON.stringify(progress)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const kindsOf = (result: { items: { resource: { kind: string } }[] }) => result.items.map((i) => i.resource.kind).sort();

for (const backend of [embeddedBackend(), qdrantBackend()] as StoreBackend[]) {
  describe(`HTTP manageOrgData with a fleet on the ${backend.name}: capabilities scanned per cluster, two sandbox clusters behind one kubeconfig`, function () {
    this.timeout(30000);
    let staging: KubeApiServer;
    let production: KubeApiServer;
    let chat: OpenAiChatServer;
    let dir: string;
    let built: TestApp | undefined;

    beforeEach(async () => {
      await backend.before();
      staging = await KubeApiServer.start();
      production = await KubeApiServer.start();
      chat = await OpenAiChatServer.start();
      chat.script(...Array.from({ length: 50 }, () => (body: Record<string, unknown>) => ({ content: analysisJson(requestedKind(body as never)) })));
      dir = mkdtempSync(path.join(tmpdir(), 'svc-fleet-orgdata-'));
    });
    afterEach(async () => {
      if (built) await stopCapabilityScan(built.container);
      built = undefined;
      await chat.close();
      await staging.close();
      await production.close();
      rmSync(dir, { recursive: true, force: true });
      await backend.after();
    });

    const app = (): Express => {
      const kubeconfig = writeFleetKubeconfig(path.join(dir, 'kubeconfig'), [
        { name: 'staging', url: staging.url, token: staging.token },
        { name: 'production', url: production.url, token: production.token },
      ]);
      built = buildTestApp(
        {
          ...backend.env(),
          KUBECONFIG: kubeconfig,
          SVC_CLUSTERS: 'staging,production',
          SVC_DATA_DIR: dir,
          OPENAI_API_KEY: chat.apiKey,
          OPENAI_BASE_URL: chat.baseUrl,
          SVC_LLM_MODEL: 'gpt-test',
          SVC_LLM_MAX_RETRIES: '0',
        },
        // embeddings stay local although OPENAI_API_KEY is set for the chat model
        { embedder: new HashingEmbedder() },
      );
      return built.app;
    };

    it('a scan in staging is not seen in production: its progress, list, get, search and recommend there are production’s own', async () => {
      const svc = app();
      const started = await ok(svc, { dataType: 'capabilities', operation: 'scan', resources: ['Deployment', 'Service'], cluster: 'staging' });
      expect(started).to.deep.include({ started: true });
      await scanEnded(svc, 'staging');
      // only staging's API server was asked for schemas
      expect(staging.requests).to.not.deep.equal([]);
      expect(production.requests).to.deep.equal([]);

      expect(await ok(svc, { dataType: 'capabilities', operation: 'progress', cluster: 'production' })).to.deep.include({ progress: null });
      expect(await ok(svc, { dataType: 'capabilities', operation: 'list', cluster: 'production' })).to.deep.include({ items: [], total: 0 });
      expect((await orgData(svc, { dataType: 'capabilities', operation: 'get', id: 'deployment.apps', cluster: 'production' })).status).to.equal(404);
      const staged = await ok(svc, { dataType: 'capabilities', operation: 'list', cluster: 'staging' });
      expect(kindsOf(staged)).to.deep.equal(['Deployment', 'Service']);
      expect(staged.items[0]).to.include({ cluster: 'staging' });

      // production's own scan, while staging's capabilities stay staging's
      await ok(svc, { dataType: 'capabilities', operation: 'scan', resources: ['Secret'], cluster: 'production' });
      await scanEnded(svc, 'production');
      expect(kindsOf(await ok(svc, { dataType: 'capabilities', operation: 'list', cluster: 'production' }))).to.deep.equal(['Secret']);
      const found = await ok(svc, { dataType: 'capabilities', operation: 'search', query: 'Deployment Service', limit: 10, cluster: 'production' });
      expect(found.results.map((r: any) => r.item.resource.kind)).to.deep.equal(['Secret']);
      expect(kindsOf(await ok(svc, { dataType: 'capabilities', operation: 'list', cluster: 'staging' }))).to.deep.equal(['Deployment', 'Service']);

      // each cluster's progress is kept apart, in a directory named after it; the single-cluster slot is not used
      expect(readdirSync(path.join(dir, 'scans', 'clusters')).sort()).to.satisfy((d: string[]) =>
        /^production-[0-9a-f]{12},staging-[0-9a-f]{12}$/.test(d.join()),
      );
      expect(existsSync(path.join(dir, 'scans', 'state.json'))).to.equal(false);

      // recommend in production shows the model production's capabilities only
      chat.requests.length = 0;
      await request(svc).post('/api/v1/tools/recommend').set(auth).send({ intent: 'a web server with a service in front', cluster: 'production' });
      const prompt = JSON.stringify(chat.requests[0] ?? {});
      expect(prompt).to.contain('Secret resources managed in the cluster.');
      expect(prompt).to.not.contain('Deployment resources managed in the cluster.');
    });

    it('a capability call without cluster is refused (400) naming the choices; patterns stay shared and need none', async () => {
      const svc = app();
      const res = await orgData(svc, { dataType: 'capabilities', operation: 'list' }).expect(400);
      expect(res.body.error.message).to.contain('svc serves 2 clusters (staging, production)');
      await orgData(svc, { dataType: 'pattern', operation: 'list' }).expect(200);
      expect(staging.requests).to.deep.equal([]);
      expect(production.requests).to.deep.equal([]);
    });
  });
}
