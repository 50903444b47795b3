import { expect } from 'chai';
import request from 'supertest';
import { auth, buildTestApp } from '../support/test-app.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { manifestOf, skillFiles } from '../support/upload-manifests.js';
import { FakeClock } from '../support/fake-clock.js';
import { QdrantServer } from '../support/qdrant-server.js';
import { UNSHARED_VECTORS } from '../../infrastructure/redis/shared-state.js';

describe('REDIS_URL: shared state on a real redis-server', function () {
  this.timeout(30000);
  let server: RedisServer;
  before(async function () {
    requireRedisServer(this);
    server = await RedisServer.start();
  });
  after(async () => server?.stop());

  it('version reports Redis connected, then down (degraded, /healthz still 200), then back without a restart', async () => {
    const t = buildTestApp({ REDIS_URL: server.url, SVC_REDIS_PREFIX: 'svc-http:' });
    try {
      const state = async () => (await request(t.app).post('/api/v1/tools/version').set(auth).send({}).expect(200)).body.data.result.system.sharedState;
      let s = await state();
      for (let i = 0; i < 50 && !s.connected; i++) s = await new Promise((r) => setTimeout(r, 50)).then(state);
      expect(s).to.deep.include({ configured: true, connected: true, provider: 'redis', url: server.url });
      await server.halt();
      const down = await request(t.app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
      expect(down.body.data.result.status).to.equal('degraded');
      expect(down.body.data.result.system.sharedState.connected).to.equal(false);
      expect(down.body.data.result.system.sharedState.error).to.match(/^Redis at redis:\/\/127\.0\.0\.1:\d+ failed to answer PING/);
      await request(t.app).get('/healthz').expect(200);
      await request(t.app).get('/api/v1/tools').set(auth).expect(200);
      await server.restart();
      s = await state();
      for (let i = 0; i < 100 && !s.connected; i++) s = await new Promise((r) => setTimeout(r, 50)).then(state);
      expect(s.connected).to.equal(true);
    } finally {
      for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    }
  });

  it('starts while Redis is unreachable; the start-up log warns when vectors are not shared', async () => {
    const t = buildTestApp({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      await request(t.app).get('/healthz').expect(200);
      const s = (await request(t.app).post('/api/v1/tools/version').set(auth).send({}).expect(200)).body.data.result.system.sharedState;
      expect(s).to.deep.include({ configured: true, connected: false });
      expect(t.logger.text()).to.contain('each replica keeps its own embedded vectors');
    } finally {
      for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    }
  });

  it("/readyz says whether Redis answers (ready keeps SPEC.md's rule) and warns that vectors are not shared without QDRANT_URL", async () => {
    const clock = new FakeClock();
    const t = buildTestApp({ REDIS_URL: server.url, SVC_REDIS_PREFIX: 'svc-ready:' }, { clock });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const up = (await request(t.app).get('/readyz').set(auth).expect(200)).body;
      expect(up).to.include({ ready: true, vectorDBHealthy: true, embeddingHealthy: true, sharedStateHealthy: true });
      expect(up.warnings).to.deep.equal([UNSHARED_VECTORS]);
      await server.halt();
      clock.advance(30_000);
      const down = (await request(t.app).get('/readyz').set(auth).expect(200)).body;
      expect(down).to.include({ ready: true, sharedStateHealthy: false });
      await request(t.app).get('/healthz').expect(200);
      await server.restart();
    } finally {
      for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    }
  });

  it('/readyz carries no warning when vectors are shared through QDRANT_URL, and no Redis field without REDIS_URL', async () => {
    const qdrant = await new QdrantServer().start();
    const t = buildTestApp({ REDIS_URL: server.url, SVC_REDIS_PREFIX: 'svc-ready2:', QDRANT_URL: qdrant.url });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const body = (await request(t.app).get('/readyz').set(auth).expect(200)).body;
      expect(body).to.include({ ready: true, sharedStateHealthy: true });
      expect(body).not.to.have.property('warnings');
      expect(t.logger.text()).not.to.contain('each replica keeps its own embedded vectors');
      const plain = (await request(buildTestApp().app).get('/readyz').set(auth).expect(200)).body;
      expect(plain).not.to.have.any.keys('sharedStateHealthy', 'warnings');
    } finally {
      for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
      await qdrant.stop();
    }
  });

  it('refuses a REDIS_URL that is not redis:// or rediss://, without echoing it', () => {
    expect(() => buildTestApp({ REDIS_URL: 'http://user:sekret-pass@redis:6379' })).to.throw(
      /^Invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL$/,
    );
  });
});

describe('uploaded sources shared through Redis', function () {
  this.timeout(30000);
  let server: RedisServer;
  const SOURCES = '/api/v1/prompts/sources';
  const render = (app: Parameters<typeof request>[0], id: string) =>
    request(app)
      .post(`/api/v1/prompts/demo?source=${encodeURIComponent(id)}`)
      .set(auth)
      .send({ arguments: { who: 'there' } });
  before(async function () {
    requireRedisServer(this);
    server = await RedisServer.start();
  });
  after(async () => server?.stop());

  it('an upload on replica A renders on replica C; a replacement on A is what C renders next; Redis down: uploads fail naming Redis', async () => {
    const env = { REDIS_URL: server.url, SVC_REDIS_PREFIX: 'svc-up:' };
    const [a, c] = [buildTestApp(env), buildTestApp(env)];
    try {
      await new Promise((r) => setTimeout(r, 200));
      const id = 'local:alice-demo';
      await request(a.app)
        .post(SOURCES)
        .set(auth)
        .send(manifestOf(id, skillFiles('demo')))
        .expect(200);
      const first = await render(c.app, id).expect(200);
      expect(first.body.data.messages[0].content.text).to.equal('Hello {{who}}\n');
      const changed = skillFiles('demo');
      changed[0].bytes = Buffer.from('---\nname: demo\ndescription: Demo skill v2\n---\nHi again {{who}}\n');
      await request(a.app).post(SOURCES).set(auth).send(manifestOf(id, changed)).expect(200);
      expect((await render(c.app, id).expect(200)).body.data.messages[0].content.text).to.equal('Hi again {{who}}\n');
      await server.halt();
      const refused = await request(a.app)
        .post(SOURCES)
        .set(auth)
        .send(manifestOf('local:other', skillFiles('demo')))
        .expect(502);
      expect(refused.body.error.code).to.equal('DEPENDENCY_ERROR');
      expect(refused.body.error.message).to.match(/^Redis at redis:\/\/127\.0\.0\.1:\d+ failed to store an uploaded source/);
      // C rendered it before: its first level still serves it
      expect((await render(c.app, id).expect(200)).body.data.messages[0].content.text).to.equal('Hi again {{who}}\n');
      await server.restart();
    } finally {
      for (const t of [a, c]) for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    }
  });

  it('holds the count bound across replicas: the least recently stored source goes first', async () => {
    const env = { REDIS_URL: server.url, SVC_REDIS_PREFIX: 'svc-lru:', SVC_SOURCES_MAX: '2' };
    const [a, b] = [buildTestApp(env), buildTestApp(env)];
    try {
      await new Promise((r) => setTimeout(r, 200));
      for (const [i, t] of [a, b, a].entries())
        await request(t.app)
          .post(SOURCES)
          .set(auth)
          .send(manifestOf(`local:s${i}`, skillFiles('demo')))
          .expect(200);
      const fresh = buildTestApp(env);
      await new Promise((r) => setTimeout(r, 200));
      expect((await render(fresh.app, 'local:s0')).status).to.equal(400);
      await render(fresh.app, 'local:s1').expect(200);
      await render(fresh.app, 'local:s2').expect(200);
      for (const close of fresh.container.resolve(TOKENS.OnShutdown)) await close();
    } finally {
      for (const t of [a, b]) for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
    }
  });
});
