import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { auth, buildTestApp, TEST_TOKEN } from '../support/test-app.js';
import { appParts } from '../../infrastructure/composition-root.js';

const VIEWER = 'viewer-token-0123456789abcdef';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

/** The value of one series in a Prometheus text exposition (exactly these labels), or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = [...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]);
    if (JSON.stringify(have.sort()) === want) return Number(m[3]);
  }
  return undefined;
}

describe('GET /metrics', function () {
  this.timeout(30000);
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-metrics-'));
  const tokensFile = path.join(dir, 'tokens');
  writeFileSync(tokensFile, `ana viewer ${sha(VIEWER)}\nops admin ${sha(TEST_TOKEN)}\n`);
  let running: RunningServer;
  let open: RunningServer;
  before(async () => {
    running = await startServer(
      appParts(buildTestApp({ SVC_AUTH_TOKEN: undefined, SVC_AUTH_TOKENS_FILE: tokensFile, SVC_RATE_LIMIT_AI: '2', SVC_RATE_LIMIT_OTHER: '10000' }).container),
    );
    open = await startServer(appParts(buildTestApp({ SVC_METRICS_PUBLIC: 'true' }).container));
  });
  after(async () => {
    await running.close();
    await open.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });
  const scrape = async (server = running) => {
    const res = await get(`${server.url}/metrics`, auth);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('is guarded by the token like the API: 401 without one, 200 with any role', async () => {
    const refused = await get(`${running.url}/metrics`);
    expect(refused.status).to.equal(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('UNAUTHORIZED');
    expect((await get(`${running.url}/metrics`, { Authorization: `Bearer ${VIEWER}` })).status).to.equal(200);
  });

  it('SVC_METRICS_PUBLIC=true opens GET /metrics only: the API still needs the token', async () => {
    expect((await get(`${open.url}/metrics`)).status).to.equal(200);
    expect((await get(`${open.url}/api/v1/tools`)).status).to.equal(401);
    expect((await fetch(`${open.url}/metrics`, { method: 'POST' })).status).to.equal(401);
  });

  it('counts requests by route template and status (the fast lane too), never by raw path', async () => {
    await get(`${running.url}/api/v1/tools`, auth);
    await get(`${running.url}/api/v1/tools?category=Deployment`, auth);
    for (let i = 0; i < 30; i++) await get(`${running.url}/api/v1/runs/run_${i}abc`, auth);
    for (let i = 0; i < 30; i++) await get(`${running.url}/wp-admin/${i}.php`, auth);
    await get(`${running.url}/api/v1/sessions`);
    const text = await scrape();
    expect(sample(text, 'svc_http_requests_total', { method: 'GET', route: '/api/v1/tools', status: '200' })).to.equal(2);
    expect(sample(text, 'svc_http_requests_total', { method: 'GET', route: '/api/v1/runs/{runId}', status: '404' })).to.equal(30);
    expect(sample(text, 'svc_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).to.equal(30);
    expect(sample(text, 'svc_http_requests_total', { method: 'GET', route: '/api/v1/sessions', status: '401' })).to.equal(1);
    expect(sample(text, 'svc_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/tools' })).to.equal(2);
    expect(text).to.not.match(/run_\d+abc|wp-admin|category=/);
  });

  it('counts tool runs by tool and outcome, role refusals and rate-limit rejections', async () => {
    const post = (tool: string, token: string, body: unknown) =>
      fetch(`${running.url}/api/v1/tools/${tool}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('version', TEST_TOKEN, {})).status).to.equal(200);
    expect((await post('remediate', VIEWER, { issue: 'x' })).status).to.equal(403);
    expect((await post('manageOrgData', VIEWER, { dataType: 'pattern', operation: 'delete', id: 'x' })).status).to.be.oneOf([400, 403]);
    expect((await post('remediate', TEST_TOKEN, { bogus: 1 })).status).to.equal(400);
    expect((await post('remediate', TEST_TOKEN, { bogus: 1 })).status).to.equal(429);
    const text = await scrape();
    expect(sample(text, 'svc_tool_runs_total', { tool: 'version', outcome: 'success' })).to.equal(1);
    expect(sample(text, 'svc_refusals_total', { reason: 'role' })).to.be.at.least(1);
    expect(sample(text, 'svc_rate_limited_total', { budget: 'ai' })).to.equal(1);
    expect(sample(text, 'svc_http_requests_total', { method: 'POST', route: '/api/v1/tools/{toolName}', status: '429' })).to.equal(1);
    expect(text).to.match(/^svc_runs_active 0$/m);
  });

  it('carries the process defaults and nothing secret', async () => {
    const text = await scrape();
    expect(text).to.match(/^process_cpu_user_seconds_total \d/m);
    expect(text).to.match(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).to.match(/^nodejs_eventloop_lag_seconds \d/m);
    for (const secret of [TEST_TOKEN, VIEWER, sha(VIEWER)]) expect(text).to.not.include(secret);
  });

  it('counts CPU seconds since the process started, user plus system, as process.cpuUsage() does', async () => {
    // burn some CPU first, so a counter that starts at registration (or a ms/1000 slip) would be far off
    const until = Date.now() + 200;
    while (Date.now() < until) Math.sqrt(Math.random());
    const before = process.cpuUsage();
    const text = await scrape();
    const after = process.cpuUsage();
    const value = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1]);
    const total = value('process_cpu_seconds_total');
    expect(total).to.be.at.least((before.user + before.system) / 1e6);
    expect(total).to.be.at.most((after.user + after.system) / 1e6);
    expect(value('process_cpu_user_seconds_total')).to.be.within(before.user / 1e6, after.user / 1e6);
    expect(value('process_cpu_system_seconds_total')).to.be.within(before.system / 1e6, after.system / 1e6);
  });
});
