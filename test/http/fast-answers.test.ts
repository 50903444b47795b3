import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fastAnswers } from '../../interfaces/http/fast-answers.js';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { auth, buildTestApp } from '../support/test-app.js';

const QUERIES = ['', '?category=Deployment', '?tag=ai', '?tags=status,operations', '?search=DRY%20run', '?category=Management&tag=ai&search=day-2', '?search=a+b', '?category=nope'];

/** Status, every header but the date and the request id, and the body without meta. */
async function snapshot(res: Response) {
  const headers = Object.fromEntries([...res.headers].filter(([k]) => k !== 'date' && k !== 'x-request-id'));
  const text = await res.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  return { status: res.status, headers, body: { ...body, meta: undefined }, meta: body.meta as { requestId?: string } | undefined, requestId: res.headers.get('x-request-id') };
}

describe('fast answers and the request gate', () => {
  const t = buildTestApp();
  let running: RunningServer;
  let plain: http.Server;
  let plainUrl: string;
  before(async () => {
    running = await startServer(t.container);
    // the same express app with nothing in front of it
    plain = http.createServer(t.app).listen(0, '127.0.0.1');
    await new Promise((r) => plain.once('listening', r));
    plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });
  after(async () => {
    await running.close();
    plain.closeAllConnections();
    await new Promise((r) => plain.close(r));
  });

  for (const path of [...QUERIES.map((q) => `/api/v1/tools${q}`), '/api/v1/openapi']) {
    it(`answers GET ${path} exactly as the express app does (status, headers, body)`, async () => {
      const fast = await snapshot(await fetch(`${running.url}${path}`, { headers: auth }));
      const slow = await snapshot(await fetch(`${plainUrl}${path}`, { headers: auth }));
      expect(fast.status).to.equal(200);
      expect(fast.status).to.equal(slow.status);
      expect(fast.headers).to.deep.equal(slow.headers);
      expect(fast.body).to.deep.equal(slow.body);
      if (fast.meta) expect(fast.meta.requestId).to.equal(fast.requestId);
    });
  }

  it('serves only well-formed reads; the rest goes to express', () => {
    const lane = fastAnswers(t.container);
    const res = () => ({ setHeader() {}, on() {}, writeHead() {}, write() {}, end() {}, headersSent: false }) as any;
    const ctx = (path: string) => ({ requestId: 'r', log: t.logger, path });
    const handled = (method: string, url: string) => lane({ method, url, headers: {} } as any, res(), ctx(url.split('?')[0]), () => undefined);
    expect(handled('GET', '/api/v1/tools')).to.equal(true);
    expect(handled('GET', '/api/v1/tools?tag=ai&search=x')).to.equal(true);
    expect(handled('GET', '/api/v1/openapi')).to.equal(true);
    expect(handled('POST', '/api/v1/tools')).to.equal(false);
    expect(handled('HEAD', '/api/v1/tools')).to.equal(false);
    expect(handled('GET', '/api/v1/tools/')).to.equal(false);
    expect(handled('GET', '/api/v1/tools?tag=a&tag=b')).to.equal(false);
    expect(handled('GET', '/api/v1/tools?unknown=1')).to.equal(false);
    expect(handled('GET', '/api/v1/openapi?x=1')).to.equal(false);
  });

  it('refuses a wrong or missing token once, in the gate, for fast and express routes alike (401 envelope)', async () => {
    for (const path of ['/api/v1/tools', '/api/v1/prompts', '/api/v1/tools/version']) {
      const ok = await fetch(`${running.url}${path}`, { headers: auth });
      await ok.arrayBuffer();
      // same keep-alive connection, now with a wrong token
      const wrong = await fetch(`${running.url}${path}`, { headers: { Authorization: `${auth.Authorization}x` } });
      expect(wrong.status, path).to.equal(401);
      expect(((await wrong.json()) as any).error).to.deep.equal({ code: 'UNAUTHORIZED', message: 'Invalid bearer token' });
      const none = await fetch(`${running.url}${path}`);
      expect(none.status).to.equal(401);
      expect(none.headers.get('www-authenticate')).to.match(/^Bearer/);
      const body = (await none.json()) as any;
      expect(body.meta.requestId).to.equal(none.headers.get('x-request-id'));
    }
  });

  it('answers /healthz before any routing, without a token, also to a foreign Host when running open', async () => {
    const res = await fetch(`${running.url}/healthz`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ status: 'ok' });
    const open = buildTestApp({ SVC_AUTH_TOKEN: undefined });
    const server = await startServer(open.container);
    try {
      const foreign = await new Promise<{ status: number; body: string }>((resolve) => {
        http.get(`${server.url}/api/v1/tools`, { headers: { host: 'evil.example' } }, (r) => {
          let body = '';
          r.on('data', (d) => (body += d)).on('end', () => resolve({ status: r.statusCode!, body }));
        });
      });
      expect(foreign.status).to.equal(403);
      expect(JSON.parse(foreign.body).error.code).to.equal('FORBIDDEN');
      const health = await new Promise<number>((resolve) => http.get(`${server.url}/healthz`, { headers: { host: 'evil.example' } }, (r) => (r.resume(), resolve(r.statusCode!))));
      expect(health).to.equal(200);
    } finally {
      await server.close();
    }
  });

  it('writes one access line with the request id per request, fast or not', async () => {
    for (const path of ['/api/v1/tools?tag=ai', '/api/v1/prompts']) {
      const res = await fetch(`${running.url}${path}`, { headers: auth });
      await res.arrayBuffer();
      const id = res.headers.get('x-request-id');
      const lines = t.logger.lines.filter((l) => l.fields.requestId === id && l.msg === 'request');
      expect(lines, path).to.have.length(1);
      expect(lines[0].fields).to.include({ method: 'GET', path: path.split('?')[0], status: 200 });
    }
  });
});
