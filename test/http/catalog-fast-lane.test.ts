import { expect } from 'chai';
import request from 'supertest';
import { catalogFastLane } from '../../interfaces/http/catalog-fast-lane.js';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { auth, buildTestApp } from '../support/test-app.js';

const QUERIES = ['', '?category=Deployment', '?tag=ai', '?tags=status,operations', '?search=DRY%20run', '?category=Management&tag=ai&search=day-2', '?search=a+b', '?category=nope'];

describe('catalog fast lane', () => {
  const t = buildTestApp();
  let running: RunningServer;
  before(async () => {
    running = await startServer(t.container);
  });
  after(() => running.close());

  const withoutMeta = (body: any) => ({ ...body, meta: undefined });

  for (const q of QUERIES) {
    it(`answers GET /api/v1/tools${q} exactly as the express app does`, async () => {
      const fast = await fetch(`${running.url}/api/v1/tools${q}`, { headers: auth });
      const slow = await request(t.app).get(`/api/v1/tools${q}`).set(auth);
      expect(fast.status).to.equal(slow.status);
      expect(fast.headers.get('content-type')).to.equal(slow.headers['content-type']);
      const body = (await fast.json()) as any;
      expect(withoutMeta(body)).to.deep.equal(withoutMeta(slow.body));
      expect(body.meta.version).to.equal('v1');
      expect(body.meta.requestId).to.equal(fast.headers.get('x-request-id'));
      expect(new Date(body.meta.timestamp).toISOString()).to.equal(body.meta.timestamp);
    });
  }

  it('handles only authorised, well-formed catalog reads; everything else goes to express', () => {
    const lane = catalogFastLane(t.container);
    const fakeRes = () => ({ setHeader() {}, on() {}, writeHead() {}, write() {}, end() {} }) as any;
    const socket = {};
    const handled = (method: string, url: string, authorization?: string) => lane({ method, url, headers: { authorization }, socket } as any, fakeRes());
    const good = auth.Authorization;
    expect(handled('GET', '/api/v1/tools', good)).to.equal(true);
    expect(handled('GET', '/api/v1/tools?tag=ai&search=x', good)).to.equal(true);
    expect(handled('GET', '/api/v1/tools')).to.equal(false);
    expect(handled('GET', '/api/v1/tools', 'Bearer wrong')).to.equal(false);
    expect(handled('POST', '/api/v1/tools', good)).to.equal(false);
    expect(handled('HEAD', '/api/v1/tools', good)).to.equal(false);
    expect(handled('GET', '/api/v1/tools/', good)).to.equal(false);
    expect(handled('GET', '/api/v1/tools?tag=a&tag=b', good)).to.equal(false);
    expect(handled('GET', '/api/v1/tools?unknown=1', good)).to.equal(false);
    // a connection that passed once is still judged again when its header changes
    expect(handled('GET', '/api/v1/tools', `${good}x`)).to.equal(false);
    expect(handled('GET', '/api/v1/tools', 'Bearer ' + 'a'.repeat(40))).to.equal(false);
  });

  it('leaves a foreign Host to the express guard when running open on loopback', async () => {
    const open = buildTestApp({ SVC_AUTH_TOKEN: undefined });
    const lane = catalogFastLane(open.container);
    const res = { setHeader() {}, on() {}, writeHead() {}, write() {}, end() {} } as any;
    expect(lane({ method: 'GET', url: '/api/v1/tools', headers: { host: 'evil.example' }, socket: {} } as any, res)).to.equal(false);
    expect(lane({ method: 'GET', url: '/api/v1/tools', headers: { host: 'localhost:3456' }, socket: {} } as any, res)).to.equal(true);
  });

  it('leaves a missing token to the express gate (401 with the envelope)', async () => {
    const ok = await fetch(`${running.url}/api/v1/tools`, { headers: auth });
    expect(ok.status).to.equal(200);
    await ok.arrayBuffer();
    // same keep-alive connection, now with a wrong token
    const wrong = await fetch(`${running.url}/api/v1/tools`, { headers: { Authorization: `${auth.Authorization}x` } });
    expect(wrong.status).to.equal(401);
    await wrong.arrayBuffer();
    const res = await fetch(`${running.url}/api/v1/tools`);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
    expect(((await res.json()) as any).error.code).to.equal('UNAUTHORIZED');
  });

  it('writes one access line with the request id, like every other route', async () => {
    const res = await fetch(`${running.url}/api/v1/tools?tag=ai`, { headers: auth });
    await res.json();
    const id = res.headers.get('x-request-id');
    const lines = t.logger.lines.filter((l) => l.fields.requestId === id);
    expect(lines.map((l) => l.msg)).to.deep.equal(['request']);
    expect(lines[0].fields).to.include({ method: 'GET', path: '/api/v1/tools', status: 200 });
  });
});
