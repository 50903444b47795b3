import { expect } from 'chai';
import { loadConfig } from '../../infrastructure/config/config.js';
import { MAX_HELD_REQUESTS, openServer, type StartingServer } from '../../interfaces/http/early-server.js';
import { attachApp, type RunningServer } from '../../interfaces/http/server.js';
import { appParts } from '../../infrastructure/composition-root.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { auth, buildTestApp, TEST_DATA_DIR, TEST_TOKEN } from '../support/test-app.js';

const config = () => loadConfig({ HOST: '127.0.0.1', PORT: '0', SVC_AUTH_TOKEN: TEST_TOKEN, LOG_LEVEL: 'silent', SVC_DATA_DIR: TEST_DATA_DIR });

describe('the server before its app is built (listen first, attach later)', () => {
  let starting: StartingServer | undefined;
  let running: RunningServer | undefined;
  afterEach(async () => {
    if (running) await running.close();
    else if (starting?.server.listening) await new Promise((r) => starting!.server.close(r));
    starting = running = undefined;
  });

  it('answers /healthz at once, as the gate does, with a request id and an access line', async () => {
    const logger = new CapturingLogger();
    starting = await openServer(config(), logger);
    const res = await fetch(`${starting.url}/healthz`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    expect(await res.json()).to.deep.equal({ status: 'ok' });
    const head = await fetch(`${starting.url}/healthz`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(await head.text()).to.equal('');
    expect(logger.lines.some((l) => l.msg === 'svc listening' && l.fields.url === starting!.url)).to.equal(true);
  });

  it('holds every other request, unanswered, and hands it to the app once attached (through the gate: no token, 401)', async () => {
    const t = buildTestApp();
    starting = await openServer(t.config, t.logger);
    let answered = false;
    const version = fetch(`${starting.url}/api/v1/tools/version`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
    const anonymous = fetch(`${starting.url}/api/v1/tools`);
    void version.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 150));
    expect(answered, 'answered before the app exists').to.equal(false);
    running = attachApp(starting, appParts(t.container));
    const res = await version;
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { data: { tool: string } }).data.tool).to.equal('version');
    expect((await anonymous).status).to.equal(401);
    // and after: served at once
    expect((await fetch(`${running.url}/api/v1/tools`, { headers: auth })).status).to.equal(200);
  });

  it(`holds a bounded number of requests (${MAX_HELD_REQUESTS} by default); past that it refuses with Retry-After rather than grow`, async () => {
    starting = await openServer(config(), new CapturingLogger(), 3);
    const url = `${starting.url}/api/v1/tools`;
    const held = Array.from({ length: 3 }, () => fetch(url, { headers: auth }));
    // all of them are in before the next one
    await new Promise((r) => setTimeout(r, 200));
    const over = await fetch(url, { headers: auth });
    expect(over.status).to.equal(429);
    expect(over.headers.get('retry-after')).to.equal('1');
    expect(((await over.json()) as { error: { message: string } }).error.message).to.include('svc is starting');
    await starting.abandon();
    expect((await Promise.all(held)).map((r) => r.status)).to.deep.equal([500, 500, 500]);
  });

  it('answers the held requests 500 and closes when the app cannot be built', async () => {
    starting = await openServer(config(), new CapturingLogger());
    const pending = fetch(`${starting.url}/api/v1/tools`, { headers: auth });
    await new Promise((r) => setTimeout(r, 100));
    await starting.abandon();
    const res = await pending;
    expect(res.status).to.equal(500);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).to.deep.include({
      code: 'INTERNAL_ERROR',
      message: 'svc failed to start; see its log',
    });
    expect(starting.server.listening).to.equal(false);
  });
});
