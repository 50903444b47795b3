import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fastAnswers } from '../../interfaces/http/fast-answers.js';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { KeptAnswers } from '../../interfaces/http/kept-answers.js';
import { FakeClock } from '../support/fake-clock.js';
import { manifestOf } from '../support/upload-manifests.js';
import { pairOf, snapshot } from '../support/fast-pair.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { promptFile, WritingGitFetcher } from '../support/writing-git-fetcher.js';
import { appParts } from '../../infrastructure/composition-root.js';

const QUERIES = [
  '',
  '?category=Deployment',
  '?tag=ai',
  '?tags=status,operations',
  '?search=DRY%20run',
  '?category=Management&tag=ai&search=day-2',
  '?search=a+b',
  '?category=nope',
];

describe('fast answers and the request gate', () => {
  const t = buildTestApp();
  let running: RunningServer;
  let plain: http.Server;
  let plainUrl: string;
  before(async () => {
    running = await startServer(appParts(t.container));
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
    const lane = fastAnswers(appParts(t.container));
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
      expect(((await wrong.json()) as any).error).to.deep.equal({ code: 'UNAUTHORIZED', message: 'Invalid bearer token: unknown token' });
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
    const server = await startServer(appParts(open.container));
    try {
      const foreign = await new Promise<{ status: number; body: string }>((resolve) => {
        http.get(`${server.url}/api/v1/tools`, { headers: { host: 'evil.example' } }, (r) => {
          let body = '';
          r.on('data', (d) => (body += d)).on('end', () => resolve({ status: r.statusCode!, body }));
        });
      });
      expect(foreign.status).to.equal(403);
      expect(JSON.parse(foreign.body).error.code).to.equal('FORBIDDEN');
      const health = await new Promise<number>((resolve) =>
        http.get(`${server.url}/healthz`, { headers: { host: 'evil.example' } }, (r) => (r.resume(), resolve(r.statusCode!))),
      );
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

export const json = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });
const NO_ARGUMENTS: RequestInit[] = [{ method: 'POST' }, json('{}'), json('{"arguments":{}}')];
const data = (s: { body: Record<string, unknown> }) => s.body.data as any;

describe('fast answers of the prompt library', function () {
  this.timeout(30000);

  describe('built-in prompts', () => {
    const t = buildTestApp();
    let pair: Awaited<ReturnType<typeof pairOf>>;
    before(async () => (pair = await pairOf(t)));
    after(async () => pair.close());

    it('answers the list exactly as express does, from kept bytes once the built-ins are read', async () => {
      await pair.same('/api/v1/prompts');
      const second = await pair.same('/api/v1/prompts');
      expect(second.status).to.equal(200);
      expect(second.byFastLane).to.equal(true);
      expect(data(second).source).to.equal('built-in');
      // a query the lane does not know, or the token header, goes to express
      expect((await pair.same('/api/v1/prompts?branch=main')).byFastLane).to.equal(false);
      expect((await pair.same('/api/v1/prompts', { headers: { 'X-Svc-Git-Token': 'x' } })).byFastLane).to.equal(false);
    });

    it('answers renders with arguments, missing arguments and unknown prompts itself, with the answers express gives', async () => {
      await pair.same('/api/v1/prompts/debug-crashloop', json('{"arguments":{"pod":"web","namespace":"shop"}}'));
      const withArgs = await pair.same('/api/v1/prompts/debug-crashloop', json('{"arguments":{"pod":"web","namespace":"shop"}}'));
      expect(withArgs.status).to.equal(200);
      expect(withArgs.byFastLane).to.equal(true);
      expect(data(withArgs).messages[0].content.text).to.contain('Pod `web` in namespace `shop`');
      for (const init of NO_ARGUMENTS) {
        const missing = await pair.same('/api/v1/prompts/debug-crashloop', init);
        expect(missing.status).to.equal(400);
        expect(missing.byFastLane).to.equal(true);
      }
      const unknown = await pair.same('/api/v1/prompts/no-such-prompt', json('{}'));
      expect([unknown.status, unknown.byFastLane]).to.deep.equal([404, true]);
      expect((await pair.same('/api/v1/prompts/debug-crashloop', json('{'))).status).to.equal(400);
      const plainText = await pair.same('/api/v1/prompts/debug-crashloop', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
      expect(plainText.byFastLane).to.equal(false);
    });
  });

  describe('a configured repository', () => {
    const clock = new FakeClock();
    const remote = new WritingGitFetcher({
      'hello.md': promptFile('hello', 'Say hello', 'Hello {{who}}!', [{ name: 'who', required: false }]),
      'plain.md': promptFile('plain', 'No arguments', 'Just text.'),
      'strict.md': promptFile('strict', 'One required argument', 'Look at {{pod}}', [{ name: 'pod', required: true }]),
    });
    const t = buildTestApp({ SVC_USER_PROMPTS_REPO: 'https://git.example/team/prompts.git', SVC_USER_PROMPTS_CACHE_TTL: '60' }, { clock, gitFetcher: remote });
    let pair: Awaited<ReturnType<typeof pairOf>>;
    before(async () => (pair = await pairOf(t)));
    after(async () => pair.close());

    it('answers the list and renders without arguments exactly as express does, from kept bytes', async () => {
      await pair.same('/api/v1/prompts');
      const list = await pair.same('/api/v1/prompts');
      expect(list.byFastLane).to.equal(true);
      expect(data(list).prompts.map((p: { name: string }) => p.name)).to.deep.equal(['hello', 'plain', 'strict']);
      expect(data(list).source).to.equal('https://git.example/team/prompts.git');
      for (const name of ['hello', 'plain']) {
        for (const init of NO_ARGUMENTS) {
          const r = await pair.same(`/api/v1/prompts/${name}`, init);
          expect(r.status).to.equal(200);
          expect(r.byFastLane, `${name} ${String(init.body)}`).to.equal(true);
        }
      }
      expect(data(await pair.same('/api/v1/prompts/hello', json('{}'))).messages[0].content.text).to.equal('Hello !\n');
    });

    it('hands a short body it does not answer on to express intact (read, then put back)', async () => {
      const r = await pair.same('/api/v1/prompts/hello', json('\ufeff{"arguments":{"who":"Ann"}}'));
      expect(r.byFastLane).to.equal(false);
      expect(data(r).messages[0].content.text).to.equal('Hello Ann!\n');
      // a compressed body is express's to decode (here it fails to), never read as a plain {}
      const gzipped = await pair.same('/api/v1/prompts/plain', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: '{}',
      });
      expect(gzipped.status).to.not.equal(200);
      const strict = await pair.same('/api/v1/prompts/strict', json('{}'));
      expect(strict.status).to.equal(400);
      expect((await pair.same('/api/v1/prompts/refresh', { method: 'POST' })).byFastLane).to.equal(false);
    });

    it('waits for a body sent after the headers, and answers nothing to a request closed before its body', async () => {
      await pair.same('/api/v1/prompts/plain', json('{}'));
      const late = await pair.split('/api/v1/prompts/plain', '{}', 60);
      expect(late.status).to.equal(200);
      expect(late.byFastLane).to.equal(true);
      expect(data(late as { body: Record<string, unknown> }).messages[0].content.text).to.equal('Just text.\n');
      const lateArguments = await pair.split('/api/v1/prompts/hello', '{"arguments":{"who":"Bo"}}', 60);
      expect(lateArguments.byFastLane).to.equal(true);
      expect(data(lateArguments as { body: Record<string, unknown> }).messages[0].content.text).to.equal('Hello Bo!\n');
      const cut = await pair.split('/api/v1/prompts/plain', '{}', 60, true);
      expect(cut.status).to.equal(0);
      // and the server goes on answering
      expect((await pair.same('/api/v1/prompts/plain', json('{}'))).status).to.equal(200);
    });

    it('answers renders pipelined on one keep-alive connection, each body read once, fast or not', async () => {
      await pair.same('/api/v1/prompts/plain', json('{}'));
      const fast = await pair.pipelined('/api/v1/prompts/plain', '{}', 3);
      expect(fast.match(/HTTP\/1\.1 200 OK/g)).to.have.length(3);
      expect(fast.match(/Just text\./g)).to.have.length(3);
      // a missing required argument, answered by the lane; each body read once
      const strict = await pair.pipelined('/api/v1/prompts/strict', '{}', 2);
      expect(strict.match(/HTTP\/1\.1 400 Bad Request/g)).to.have.length(2);
      const withArguments = await pair.pipelined('/api/v1/prompts/hello', '{"arguments":{"who":"Cy"}}', 2);
      expect(withArguments.match(/Hello Cy!/g)).to.have.length(2);
    });

    it('serves the new content after a refresh, never the kept bytes of the old clone', async () => {
      expect(data(await pair.same('/api/v1/prompts/plain', json('{}'))).messages[0].content.text).to.equal('Just text.\n');
      remote.files['plain.md'] = promptFile('plain', 'No arguments', 'Refreshed text.');
      remote.files['extra.md'] = promptFile('extra', 'Added later', 'More.');
      const refreshed = await fetch(`${pair.running.url}/api/v1/prompts/refresh`, { method: 'POST', headers: auth });
      expect(refreshed.status).to.equal(200);
      const render = await pair.same('/api/v1/prompts/plain', json('{}'));
      expect(render.byFastLane).to.equal(true);
      expect(data(render).messages[0].content.text).to.equal('Refreshed text.\n');
      const list = await pair.same('/api/v1/prompts');
      expect(list.byFastLane).to.equal(true);
      expect(data(list).prompts.map((p: { name: string }) => p.name)).to.deep.equal(['extra', 'hello', 'plain', 'strict']);
    });

    it('drops the kept bytes when the cache TTL expires: express clones again, then the new copy is kept', async () => {
      await pair.same('/api/v1/prompts/plain', { method: 'POST' });
      remote.files['plain.md'] = promptFile('plain', 'No arguments', 'After expiry.');
      const clones = remote.clones;
      clock.advance(61_000);
      const first = await pair.same('/api/v1/prompts/plain', { method: 'POST' });
      expect(first.byFastLane).to.equal(false);
      expect(remote.clones).to.equal(clones + 1);
      expect(data(first).messages[0].content.text).to.equal('After expiry.\n');
      const again = await pair.same('/api/v1/prompts/plain', { method: 'POST' });
      expect(again.byFastLane).to.equal(true);
      expect(data(again).messages[0].content.text).to.equal('After expiry.\n');
    });

    it('logs a failure inside a fast answer with the request id, and express answers instead', async () => {
      const resolver = t.container.resolve(TOKENS.PromptSourceResolver);
      const real = resolver.peekDefault.bind(resolver);
      resolver.peekDefault = () => {
        throw new Error('injected fast-lane failure');
      };
      try {
        const r = await pair.same('/api/v1/prompts');
        expect(r.status).to.equal(200);
        expect(r.byFastLane).to.equal(false);
        const line = t.logger.lines.find((l) => l.msg === 'fast answer failed; express answers instead' && l.fields.requestId === r.requestId);
        expect(line, 'failure logged with the request id').to.not.equal(undefined);
        expect(String(line!.fields.err)).to.contain('injected fast-lane failure');
      } finally {
        resolver.peekDefault = real;
      }
    });
  });

  describe('an uploaded source (?source=)', () => {
    const t = buildTestApp();
    let pair: Awaited<ReturnType<typeof pairOf>>;
    before(async () => (pair = await pairOf(t)));
    after(async () => pair.close());
    const ID = 'https://alice:s3cret@git.corp.example/team/skills.git';
    const upload = async (text: string) => {
      const manifest = manifestOf(ID, [{ path: 'note.md', bytes: Buffer.from(promptFile('note', 'A note', text)) }]);
      const res = await fetch(`${pair.running.url}/api/v1/prompts/sources`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(manifest),
      });
      expect(res.status).to.equal(200);
    };
    const q = `?source=${encodeURIComponent(ID)}`;

    it('answers as express does, and serves the new upload of that identifier, not the kept bytes of the old', async () => {
      expect((await pair.same(`/api/v1/prompts${q}`)).status).to.equal(400);
      await upload('First.');
      await pair.same(`/api/v1/prompts/note${q}`, json('{}'));
      const first = await pair.same(`/api/v1/prompts/note${q}`, json('{}'));
      expect(first.byFastLane).to.equal(true);
      expect(data(first).messages[0].content.text).to.equal('First.\n');
      expect(data(first).source).to.equal('https://***:***@git.corp.example/team/skills.git');
      const list = await pair.same(`/api/v1/prompts${q}`);
      expect(list.byFastLane).to.equal(true);
      await upload('Second.');
      const second = await pair.same(`/api/v1/prompts/note${q}`, json('{}'));
      expect(second.byFastLane).to.equal(true);
      expect(data(second).messages[0].content.text).to.equal('Second.\n');
    });

    it('logs an asynchronous failure with the request id, and express answers instead', async () => {
      const ingested = t.container.resolve(TOKENS.IngestedPromptSource);
      const real = ingested.resolve.bind(ingested);
      let failures = 1;
      ingested.resolve = (id: string) => (failures-- > 0 ? Promise.reject(new Error('injected store failure')) : real(id));
      try {
        const r = await pair.same(`/api/v1/prompts${q}`);
        expect(r.status).to.equal(200);
        expect(r.byFastLane).to.equal(false);
        const line = t.logger.lines.find((l) => l.msg === 'fast answer failed; express answers instead' && l.fields.requestId === r.requestId);
        expect(String(line?.fields.err)).to.contain('injected store failure');
      } finally {
        ingested.resolve = real;
      }
    });
  });
});

describe('kept answers', () => {
  it('holds at most the configured count and bytes, and drops a group kept under another version', () => {
    const kept = new KeptAnswers({ maxAnswers: 3, maxBytes: 400 });
    const v1 = {};
    const v2 = {};
    kept.put('a', v1, 'x', Buffer.alloc(50));
    kept.put('a', v1, 'y', Buffer.alloc(50));
    kept.put('b', v1, 'x', Buffer.alloc(50));
    kept.put('b', v1, 'y', Buffer.alloc(50));
    expect(kept.stats()).to.deep.equal({ groups: 2, answers: 3, bytes: 150 });
    expect(kept.get('a', v1, 'x')).to.equal(undefined);
    kept.put('c', v1, 'big', Buffer.alloc(101));
    expect(kept.stats().answers).to.equal(3);
    kept.put('c', v1, 'z', Buffer.alloc(100));
    kept.put('c', v1, 'w', Buffer.alloc(100));
    kept.put('c', v1, 'v', Buffer.alloc(100));
    expect(kept.stats().bytes).to.be.at.most(400);
    expect(kept.get('c', v2, 'z')).to.equal(undefined);
    expect(kept.stats()).to.deep.equal({ groups: 0, answers: 0, bytes: 0 });
  });

  it('gives way by use: the group read most recently is kept, the one left alone goes first', () => {
    const kept = new KeptAnswers({ maxAnswers: 2, maxBytes: 1000 });
    const v = {};
    kept.put('old', v, 'x', Buffer.alloc(10));
    kept.put('young', v, 'x', Buffer.alloc(10));
    expect(kept.get('old', v, 'x')).to.not.equal(undefined);
    kept.put('new', v, 'x', Buffer.alloc(10));
    expect(kept.get('old', v, 'x')).to.not.equal(undefined);
    expect(kept.get('young', v, 'x')).to.equal(undefined);
    expect(kept.get('new', v, 'x')).to.not.equal(undefined);
    // a bound that holds nothing keeps nothing, and does not spin
    const none = new KeptAnswers({ maxAnswers: 0, maxBytes: 1000 });
    none.put('g', v, 'x', Buffer.alloc(10));
    expect(none.stats().answers).to.equal(0);
  });
});
