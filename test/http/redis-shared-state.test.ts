import { expect } from 'chai';
import request from 'supertest';
import { auth, buildTestApp } from '../support/test-app.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { TOKENS } from '../../infrastructure/tokens.js';

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

  it('refuses a REDIS_URL that is not redis:// or rediss://, without echoing it', () => {
    expect(() => buildTestApp({ REDIS_URL: 'http://user:sekret-pass@redis:6379' })).to.throw(/^Invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL$/);
  });
});
