import { expect } from 'chai';
import { existsSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import request from 'supertest';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import { buildTestApp, TEST_TOKEN } from '../support/test-app.js';

const CHROMIUM = '/usr/bin/chromium';
/** Where the screenshot lands (kept out of git by .gitignore). */
export const ARTIFACTS = path.resolve(__dirname, '..', '..', '..', 'test-artifacts');

describe('GET /docs: the API page', function () {
  this.timeout(60000);

  it('serves the page and its assets without a token, under a self-only content policy; nothing else of the package', async () => {
    const { app } = buildTestApp();
    const page = await request(app).get('/docs').expect(200);
    expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).to.match(/default-src 'self'; script-src 'self';/);
    expect(page.text).to.contain('<script src="/docs/swagger-ui-bundle.js"></script>');
    expect(page.text).not.to.match(/https?:\/\//);
    await request(app)
      .get('/docs/swagger-ui-bundle.js')
      .expect(200)
      .expect('content-type', /javascript/);
    await request(app)
      .get('/docs/docs.js')
      .expect(200)
      .expect(/url: '\/api\/v1\/openapi'/);
    for (const other of ['/docs/package.json', '/docs/index.html', '/docs/..%2Fpackage.json', '/docs/swagger-ui-bundle.js.map']) {
      const res = await request(app).get(other);
      expect(res.status, other).to.equal(401);
    }
  });

  it('GET / sends a person to the API page (no token needed, no data: a redirect); any other unknown path still needs the token', async () => {
    const { app } = buildTestApp();
    await request(app).get('/').expect(302).expect('location', '/docs');
    await request(app).head('/').expect(302);
    await request(app).post('/').expect(401);
    await request(app).get('/index.html').expect(401);
    await request(app).get('/nope').set('Authorization', `Bearer ${TEST_TOKEN}`).expect(404);
  });

  describe('in a real browser (Debian chromium driven by playwright-core, headless)', () => {
    let browser: Browser | undefined;
    let server: Server;
    let base: string;

    before(async function () {
      if (!existsSync(CHROMIUM)) {
        if (process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
        this.skip();
      }
      const { app } = buildTestApp();
      server = app.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
    });
    after(async () => {
      await browser?.close();
      server?.closeAllConnections();
      await new Promise((r) => (server ? server.close(r) : r(undefined)));
    });

    it('loads, lists the nine tools, runs version with the bearer typed in, and shows the answer', async () => {
      const page = await browser!.newPage();
      const offsite: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(base) && !r.url().startsWith('data:')) offsite.push(r.url());
      });
      await page.goto(`${base}/docs`);
      await page.waitForSelector('.opblock-summary-path');
      const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.textContent?.replace(/\u200b/g, '').trim()));
      for (const t of TOOL_DEFINITIONS) expect(paths).to.include(`/api/v1/tools/${t.name}`);

      await page.click('.btn.authorize');
      await page.fill('.auth-container input', TEST_TOKEN);
      await page.click('.auth-btn-wrapper .modal-btn.auth');
      await page.click('.auth-btn-wrapper .btn-done');

      const version = page.locator('.opblock', { has: page.locator('.opblock-summary-path', { hasText: /\/api\/v1\/tools\/version$/ }) }).first();
      await version.locator('.opblock-summary').click();
      const tryOut = version.locator('.try-out__btn');
      if ((await tryOut.textContent())?.includes('Try it out')) await tryOut.click();
      await version.locator('.execute').click();
      const body = version.locator('.live-responses-table .response-col_description .highlight-code');
      await body.waitFor();
      const text = (await body.textContent()) ?? '';
      expect(text).to.contain('"success": true');
      expect(text).to.contain('"tool": "version"');
      await body.scrollIntoViewIfNeeded();
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'docs-page.png'), fullPage: false });
      expect(offsite, 'requests that left svc').to.deep.equal([]);
    });
  });
});
