import { expect } from 'chai';
import request from 'supertest';
import { MemoryRateLimiter } from '../../infrastructure/rate-limit/memory-rate-limiter.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { FakeClock } from '../support/fake-clock.js';
import { requireRedisServer } from '../support/redis-fixture.js';
import { RedisServer } from '../support/redis-server.js';
import { auth, buildTestApp } from '../support/test-app.js';

describe('per-caller rate limits', function () {
  this.timeout(30000);

  it('gives the AI tools their own budget: over it, 429 RATE_LIMITED with Retry-After; version and the catalog count elsewhere', async () => {
    const { app } = buildTestApp({ SVC_RATE_LIMIT_AI: '3', SVC_RATE_LIMIT_OTHER: '100', SVC_RATE_LIMIT_WINDOW_S: '60' });
    for (let i = 0; i < 3; i++) await request(app).post('/api/v1/tools/remediate').set(auth).send({ bogus: 1 }).expect(400);
    const refused = await request(app).post('/api/v1/tools/operate').set(auth).send({}).expect(429);
    expect(refused.body.error).to.deep.equal({
      code: 'RATE_LIMITED',
      message: 'Rate limit reached: at most 3 AI tool requests per 60 s per caller; retry after 60 s',
    });
    expect(Number(refused.headers['retry-after'])).to.be.within(59, 60);
    expect(refused.body.meta.requestId).to.equal(refused.headers['x-request-id']);
    await request(app).post('/api/v1/tools/version').set(auth).send({}).expect(200);
    await request(app).get('/api/v1/tools').set(auth).expect(200);
  });

  it('charges each MCP tools/call of an AI tool to the same AI budget as REST; other MCP calls count elsewhere', async () => {
    const { app } = buildTestApp({ SVC_RATE_LIMIT_AI: '3', SVC_RATE_LIMIT_OTHER: '100', SVC_RATE_LIMIT_WINDOW_S: '60' });
    const mcp = (name: string, args: Record<string, unknown>) =>
      request(app)
        .post('/mcp')
        .set(auth)
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
    await request(app).post('/api/v1/tools/remediate').set(auth).send({ bogus: 1 }).expect(400);
    for (let i = 0; i < 2; i++) {
      const answered = await mcp('remediate', { bogus: 1 }).expect(200);
      expect(answered.body.result.isError).to.equal(true);
    }
    const refused = await mcp('operate', {}).expect(429);
    expect(refused.body.error.code).to.equal('RATE_LIMITED');
    expect(refused.body.error.message).to.contain('at most 3 AI tool requests per 60 s');
    expect(Number(refused.headers['retry-after'])).to.be.within(59, 60);
    await request(app).post('/api/v1/tools/operate').set(auth).send({}).expect(429);
    const version = await mcp('version', {}).expect(200);
    expect(version.body.result.isError).to.not.equal(true);
  });

  it('counts refused tokens against the address, never /healthz, and nothing when disabled', async () => {
    const { app } = buildTestApp({ SVC_RATE_LIMIT_OTHER: '5' });
    for (let i = 0; i < 5; i++) await request(app).get('/api/v1/tools').set({ Authorization: 'Bearer wrong-token' }).expect(401);
    await request(app).get('/api/v1/tools').set(auth).expect(429);
    for (let i = 0; i < 20; i++) await request(app).get('/healthz').expect(200);
    const off = buildTestApp({ SVC_RATE_LIMIT_OTHER: '1', SVC_RATE_LIMIT_ENABLED: 'false' });
    for (let i = 0; i < 5; i++) await request(off.app).get('/api/v1/tools').set(auth).expect(200);
  });

  it('keeps the in-process counters bounded and windowed', () => {
    const clock = new FakeClock();
    const limiter = new MemoryRateLimiter(clock);
    expect(limiter.hit('a', 2, 1000)).to.deep.equal({ allowed: true, remaining: 1, resetMs: 1000 });
    limiter.hit('a', 2, 1000);
    expect(limiter.hit('a', 2, 1000).allowed).to.equal(false);
    clock.advance(1000);
    expect(limiter.hit('a', 2, 1000).allowed).to.equal(true);
    for (let i = 0; i < 100_050; i++) limiter.hit(`k${i}`, 1, 60000);
    expect(limiter.size).to.be.at.most(100_000);
  });

  describe('shared through Redis', () => {
    let server: RedisServer;
    before(async function () {
      requireRedisServer(this);
      server = await RedisServer.start();
    });
    after(async () => server?.stop());

    it('limits a caller across three replicas, falls back to per-replica counters while Redis is down, and logs it', async () => {
      const env = { REDIS_URL: server.url, SVC_REDIS_PREFIX: 'svc-rl:', SVC_RATE_LIMIT_OTHER: '6' };
      const replicas = [buildTestApp(env), buildTestApp(env), buildTestApp(env)];
      try {
        await new Promise((r) => setTimeout(r, 300));
        for (let i = 0; i < 6; i++)
          await request(replicas[i % 3].app)
            .get('/api/v1/tools')
            .set(auth)
            .expect(200);
        for (const r of replicas) await request(r.app).get('/api/v1/tools').set(auth).expect(429);
        await server.halt();
        // per replica now: a fresh window on each
        await request(replicas[0].app).get('/api/v1/tools').set(auth).expect(200);
        expect(replicas[0].logger.text()).to.contain('rate limiting falls back to per-replica counters while Redis is unavailable');
        await server.restart();
      } finally {
        for (const t of replicas) for (const close of t.container.resolve(TOKENS.OnShutdown)) await close();
      }
    });
  });
});
