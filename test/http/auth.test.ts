import { expect } from 'chai';
import request from 'supertest';
import { auth, buildTestApp, TEST_TOKEN } from '../support/test-app.js';

const GATED: Array<[method: 'get' | 'post', path: string]> = [
  ['get', '/api/v1/tools'],
  ['post', '/api/v1/tools/version'],
  ['post', '/api/v1/tools/nope'],
  ['get', '/api/v1/unknown'],
  ['get', '/api/v1/prompts'],
  ['post', '/api/v1/prompts/refresh'],
  ['post', '/api/v1/prompts/some-prompt'],
  ['post', '/api/v1/prompts/sources'],
  ['get', '/readyz'],
];

describe('HTTP bearer authentication', () => {
  const { app, logger } = buildTestApp();

  for (const [method, path] of GATED) {
    it(`${method.toUpperCase()} ${path} without a token is 401 UNAUTHORIZED with WWW-Authenticate`, async () => {
      const res = await request(app)[method](path).send({}).expect(401);
      expect(res.headers['www-authenticate']).to.match(/^Bearer/);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.code).to.equal('UNAUTHORIZED');
      expect(res.body.meta.requestId).to.equal(res.headers['x-request-id']);
    });

    it(`${method.toUpperCase()} ${path} with a wrong token is 401`, async () => {
      const res = await request(app)[method](path).set('Authorization', `Bearer ${TEST_TOKEN}x`).send({}).expect(401);
      expect(res.body.error.code).to.equal('UNAUTHORIZED');
    });
  }

  it('closes the connection instead of draining an unauthenticated body', async () => {
    const res = await request(app).post('/api/v1/prompts/sources').send({ source: 'local:x', files: [] }).expect(401);
    expect(res.headers.connection).to.equal('close');
  });

  it('accepts the right token, case-insensitive scheme', async () => {
    await request(app).get('/api/v1/tools').set('Authorization', `bearer ${TEST_TOKEN}`).expect(200);
    await request(app).get('/api/v1/tools').set(auth).expect(200);
  });

  it('refuses other schemes and a token prefix', async () => {
    await request(app).get('/api/v1/tools').set('Authorization', `Basic ${TEST_TOKEN}`).expect(401);
    await request(app)
      .get('/api/v1/tools')
      .set('Authorization', `Bearer ${TEST_TOKEN.slice(0, -1)}`)
      .expect(401);
    await request(app).get('/api/v1/tools').set('Authorization', 'Bearer').expect(401);
  });

  it('leaves /healthz and the OpenAPI document open', async () => {
    const health = await request(app).get('/healthz').expect(200);
    expect(health.body).to.deep.equal({ status: 'ok' });
    const doc = await request(app).get('/api/v1/openapi').expect(200);
    expect(doc.body.openapi).to.match(/^3\.0/);
    expect(doc.body).to.not.have.property('success');
  });

  it('does not open gated routes through path spellings', async () => {
    await request(app).get('/healthz/../api/v1/tools').expect(401);
    await request(app).get('/healthz/..%2Fapi/v1/tools').expect(401);
    await request(app).get('/API/V1/TOOLS').expect(401);
    await request(app).get('/api/v1/openapi%2F..%2Ftools').expect(401);
  });

  it('never logs the bearer token', async () => {
    await request(app).get('/api/v1/tools').set(auth).expect(200);
    await request(app).get('/api/v1/tools').set('Authorization', `Bearer ${TEST_TOKEN}zz`).expect(401);
    expect(logger.text()).to.not.include(TEST_TOKEN);
    expect(logger.lines.filter((l) => l.msg === 'request').length).to.be.greaterThan(1);
  });

  it('without a token, answers only requests addressed to a loopback name (DNS rebinding)', async () => {
    const open = buildTestApp({ SVC_AUTH_TOKEN: undefined });
    for (const host of ['evil.example', 'evil.example:3456', '127.0.0.1.nip.io', '10.0.0.1', 'localhost.evil.example']) {
      const res = await request(open.app).get('/api/v1/tools').set('Host', host).expect(403);
      expect(res.body.error.code, host).to.equal('FORBIDDEN');
      expect(res.body.error.message).to.include('SVC_AUTH_TOKEN');
    }
    for (const host of ['localhost:3456', '127.0.0.1', '[::1]:3456', 'LOCALHOST']) {
      await request(open.app).get('/api/v1/tools').set('Host', host).expect(200);
    }
    await request(open.app).get('/healthz').set('Host', 'evil.example').expect(200);
    // a token, or an open non-loopback bind chosen on purpose, does not restrict Host
    await request(app).get('/api/v1/tools').set(auth).set('Host', 'svc.example.com').expect(200);
    const proxied = buildTestApp({ SVC_AUTH_TOKEN: undefined, HOST: '0.0.0.0', SVC_ALLOW_UNAUTHENTICATED: 'true' });
    await request(proxied.app).get('/api/v1/tools').set('Host', 'svc.example.com').expect(200);
  });

  it('runs open when no token is configured (loopback bind)', async () => {
    const open = buildTestApp({ SVC_AUTH_TOKEN: undefined });
    await request(open.app).get('/api/v1/tools').expect(200);
  });
});
